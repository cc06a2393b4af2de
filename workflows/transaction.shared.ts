/**
 * What the charge workflows (charge, settlement, resolution) share with those who start, signal or name them: ids,
 * signals, inputs and registered names. Pure, like Temporal's samples' shared.ts: the API, activities and other
 * workflows import this file, never workflows/transaction.ts, so no import runs from activities back to workflows.
 */
import { defineSignal } from '@temporalio/workflow';
import type { TransactionInput, TransactionResult, PlannedAttempt, SettlementSignal } from './lib/transaction-types';

export const transactionWorkflowId = (transactionId: string) => `transaction-${transactionId}`;
export const settlementWorkflowId = (transactionId: string) => `transaction-settlement-${transactionId}`;
export const transactionResolutionWorkflowId = (transactionId: string) => `transaction-resolution-${transactionId}`;

/** Registered names (workflows/index.ts): a starter that must not import workflows/transaction.ts starts by name. */
export const TRANSACTION_WORKFLOW = 'transactionWorkflow';
export const ASYNC_SETTLEMENT_WORKFLOW = 'asyncSettlementWorkflow';
export const TRANSACTION_RESOLUTION_WORKFLOW = 'transactionResolutionWorkflow';
export type TransactionWorkflow = (input: TransactionInput) => Promise<TransactionResult>;
export type AsyncSettlementWorkflow = (input: SettlementInput) => Promise<TransactionResult>;
export type TransactionResolutionWorkflow = (input: ResolutionInput) => Promise<TransactionResult>;

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
