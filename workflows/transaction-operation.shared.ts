/**
 * What the capture/void/refund workflows share with their starters (the API, the charge and subscription
 * workflows): ids and the operation's result. Pure, like Temporal's samples' shared.ts.
 */
import type { OperationInput } from './lib/transaction-types';

export const pendingRefundWorkflowId = (refundId: string) => `refund-poll-${refundId}`;

/** `<kind>-<transaction id>-<operation id>`: an operator reads the charge an operation belongs to off its id. */
export const operationWorkflowId = (input: Pick<OperationInput, 'kind' | 'operationId' | 'transactionId'>) =>
  `${input.kind}-${input.transactionId}-${input.operationId}`;

export type OperationResult = { ok: true; outcome: string } | { ok: false; code: string; message: string };
