/**
 * What the checkout expiry workflow shares with the API that starts and signals it: its id, input, outcome and
 * signal (named as sent on the wire). Pure, like Temporal's samples' shared.ts.
 */
import { defineSignal } from '@temporalio/workflow';

/** New expires_at (ISO 8601) of the session this workflow watches. */
export const expiresAtChangedSignal = defineSignal<[string]>('expiresAtChanged');

export const checkoutExpiryWorkflowId = (sessionId: string) => `checkout-expiry-${sessionId}`;

export interface CheckoutExpiryInput {
  sessionId: string;
  /** ISO 8601. Ids and times only: no personal data in workflow history. */
  expiresAt: string;
}

export type CheckoutExpiryOutcome = 'expired' | 'unchanged' | 'missing';
