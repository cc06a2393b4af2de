/**
 * What the charge workflows (charge, settlement, resolution) share with those who start, signal or name them: ids,
 * signals, inputs and registered names. Pure, like Temporal's samples' shared.ts: the API, activities and other
 * workflows import this file, never workflows/transaction.ts, so no import runs from activities back to workflows.
 */
import { defineQuery, defineSignal } from '@temporalio/workflow';
import type { TransactionInput, TransactionResult, PlannedAttempt, SettlementSignal } from './lib/transaction-types';

export const transactionWorkflowId = (transactionId: string) => `transaction-${transactionId}`;
export const settlementWorkflowId = (transactionId: string) => `transaction-settlement-${transactionId}`;
export const transactionResolutionWorkflowId = (transactionId: string) => `transaction-resolution-${transactionId}`;
export const authenticationWorkflowId = (transactionId: string) => `transaction-authentication-${transactionId}`;

/** Registered names (workflows/index.ts): a starter that must not import workflows/transaction.ts starts by name. */
export const TRANSACTION_WORKFLOW = 'transactionWorkflow';
export const ASYNC_SETTLEMENT_WORKFLOW = 'asyncSettlementWorkflow';
export const TRANSACTION_RESOLUTION_WORKFLOW = 'transactionResolutionWorkflow';
export const TRANSACTION_AUTHENTICATION_WORKFLOW = 'transactionAuthenticationWorkflow';
export type TransactionWorkflow = (input: TransactionInput) => Promise<TransactionResult>;
export type AsyncSettlementWorkflow = (input: SettlementInput) => Promise<TransactionResult>;
export type TransactionResolutionWorkflow = (input: ResolutionInput) => Promise<TransactionResult>;
export type TransactionAuthenticationWorkflow = (input: AuthenticationInput) => Promise<TransactionResult>;

/** A provider's pix/boleto verdict, from an inbound webhook (named as sent on the wire). */
export const providerEventSignal = defineSignal<[SettlementSignal]>('providerEvent');
/**
 * A provider's payment notification was kept on the attempt a resolution waits on (inbound webhook): the verdict is
 * in the database, so the resolution looks at once instead of at its next timer.
 */
export const attemptVerdictKeptSignal = defineSignal('attemptVerdictKept');

export interface SettlementInput {
  transactionId: string;
  amount: number;
  /**
   * The charge's capture mode: false settles paid as an authorization (pre_authorized, nothing captured) for the
   * merchant to capture or void. Settlements started before it was carried have none and capture, as they did.
   */
  capture?: boolean;
  /** The payment instructions' expiry; without one the charge waits up to seven days. */
  expiresAt: string | null;
}

export interface ResolutionInput {
  transactionId: string;
  attemptNumber: number;
  /** The attempt's connector and routing node: the transaction's, should the attempt turn out approved. */
  attempt: PlannedAttempt;
  amount: number;
  /** The charge's capture mode: an approved attempt is authorized (captured) or pre_authorized (held). */
  capture: boolean;
}

/**
 * The buyer is back from the 3-D Secure challenge (the return endpoint), or the provider notified the payment (its
 * webhook): the waiting charge asks the provider now rather than at its next timer. The return carries what the
 * provider sent the browser back with (`returnParams`: Adyen's redirectResult), which the provider itself checks, so
 * anyone able to reach the return endpoint can only make the charge ask sooner. The webhook carries the verdict its
 * authenticated notification states (`notified`), taken only where the provider's own answer has none.
 */
export const authenticationReturnedSignal = defineSignal<[AuthenticationReturn?]>('authenticationReturned');

export interface AuthenticationReturn {
  /** At most a few short string fields, never card data (api/modules/transactions/three-ds-return.middleware.ts). */
  returnParams?: Record<string, string>;
  notified?: SettlementSignal['type'];
}

/** What a charge waiting for its challenge waits for (Temporal UI / CLI: query `waitingFor`). */
export const waitingForQuery = defineQuery<AuthenticationWait>('waitingFor');

export interface AuthenticationWait {
  type: 'three_ds_challenge';
  attemptNumber: number;
  /** The deadline: past it the charge fails authentication_abandoned. */
  expiresAt: string;
  /** Lookups at the provider so far. */
  lookups: number;
}

export interface AuthenticationInput {
  transactionId: string;
  attemptNumber: number;
  /** The attempt's connector and routing node: the transaction's, should the payment be approved. */
  attempt: PlannedAttempt;
  amount: number;
  capture: boolean;
  /** When the challenge expires (the attempt's next_action.expires_at). */
  expiresAt: string;
}
