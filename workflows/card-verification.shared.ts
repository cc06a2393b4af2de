/**
 * What the card verification workflow shares with the API that starts it: its id, input and result. Pure, like
 * Temporal's samples' shared.ts.
 */
import type { Outcome } from './lib/transaction-types';

export const cardVerificationWorkflowId = (tokenId: string) => `card-verification-${tokenId}`;

export interface CardVerificationInput {
  merchantId: string;
  tokenId: string;
  /** In routing order; at least one. */
  connectorIds: string[];
  currency: string;
}

export interface CardVerificationResult {
  outcome: Outcome;
  /** The connector that gave the final outcome. */
  connectorId: string;
  providerReference: string | null;
  rawCode: string | null;
  networkTransactionId: string | null;
  attempts: number;
}
