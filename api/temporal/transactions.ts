/** Charges, capture/void/refund, card verification and connector credential checks, as the API starts and waits for them. */
import { type Client, WorkflowNotFoundError } from '@temporalio/client';
import { ApiError } from '../../domain/platform/errors';
import { randomBase62 } from '../../domain/platform/ids';
import { cardVerificationWorkflow } from '../../workflows/card-verification';
import {
  cardVerificationWorkflowId,
  type CardVerificationInput,
  type CardVerificationResult,
} from '../../workflows/card-verification.shared';
import { transactionWorkflow } from '../../workflows/transaction';
import {
  authenticationReturnedSignal,
  authenticationWorkflowId,
  transactionWorkflowId,
} from '../../workflows/transaction.shared';
import { connectorCredentialCheckWorkflow } from '../../workflows/connector-credential-check';
import {
  connectorCredentialCheckWorkflowId,
  type CredentialCheckInput,
  type CredentialCheckResult,
} from '../../workflows/connector-credential-check.shared';
import { SEARCH_ATTRIBUTE_KEYS as SA, TASK_QUEUES } from '../../workflows/definitions';
import type { TransactionInput, OperationInput } from '../../workflows/lib/transaction-types';
import { transactionOperationWorkflow } from '../../workflows/transaction-operation';
import { operationWorkflowId, type OperationResult } from '../../workflows/transaction-operation.shared';
import { startOrJoin, withWorkflowDeadline, WorkflowWaitTimeout } from './waits';

// ── Charges ──────────────────────────────────────────────────────────────────────────────────────────────────

/** The one line the Temporal UI shows for the charge (amounts in minor units; never card or customer data). */
export const transactionSummary = (input: TransactionInput) =>
  `${input.chargeType === 'setup_verification' ? 'Card verification' : 'Charge'} ${input.transactionId}: ` +
  `${input.amount} ${input.currency} (minor units) by ${input.paymentMethod}${input.capture ? '' : ', authorize only'}`;

// The workflow keeps running (or is retried by Temporal); the client retries with the same key or GETs the id.
const chargeNotAnswered = (error: unknown, transactionId: string) =>
  error instanceof WorkflowWaitTimeout
    ? new ApiError(
        504,
        'external_service_error',
        'CHARGE_STILL_PROCESSING',
        'The charge is still being processed; retry with the same Idempotency-Key or read the transaction later',
        { transaction_id: transactionId },
      )
    : new ApiError(502, 'external_service_error', 'CHARGE_UNAVAILABLE', 'The charge could not be completed right now', {
        transaction_id: transactionId,
      });

/**
 * Starts (or joins) the charge workflow and waits for its first outcome: authorized, pre_authorized, failed or pending.
 * With a client on the in-process worker's connection (TemporalDeps.eager) the start is eager.
 */
export async function runTransaction(
  { client, eager }: { client: Client; eager?: Client },
  input: TransactionInput,
  waitMs: number,
): Promise<void> {
  const starter = eager ?? client;
  try {
    await withWorkflowDeadline(starter, waitMs, () =>
      startOrJoin(starter, transactionWorkflow, {
        requestEagerStart: eager !== undefined,
        workflowId: transactionWorkflowId(input.transactionId),
        taskQueue: TASK_QUEUES.payments,
        args: [input],
        staticSummary: transactionSummary(input),
        typedSearchAttributes: [
          { key: SA.OrganizationId, value: input.organizationId },
          { key: SA.MerchantId, value: input.merchantId },
          ...(input.customerId ? [{ key: SA.CustomerId, value: input.customerId }] : []),
          { key: SA.PaymentMethod, value: input.paymentMethod },
          { key: SA.TransactionId, value: [input.transactionId] },
          { key: SA.TransactionStatus, value: 'pending' },
        ],
      }),
    );
  } catch (error) {
    throw chargeNotAnswered(error, input.transactionId);
  }
}

/** A retried charge whose transaction already exists: waits for its workflow rather than charging again. */
export async function awaitTransaction(client: Client, transactionId: string, waitMs: number): Promise<void> {
  try {
    await withWorkflowDeadline(client, waitMs, () =>
      client.workflow.getHandle(transactionWorkflowId(transactionId)).result(),
    );
  } catch (error) {
    throw chargeNotAnswered(error, transactionId);
  }
}

/**
 * The buyer's browser is back from the 3-D Secure challenge: tells the charge's wait to ask the provider now, with
 * the parameters the provider sent the browser back with, and waits (up to waitMs) for it to decide, so the page the
 * buyer lands on reads the outcome. A wait that is over (the deadline passed, or it was decided) is not there to
 * tell: a late return changes nothing.
 */
export async function returnFromAuthentication(
  client: Client,
  transactionId: string,
  waitMs: number,
  returnParams: Record<string, string>,
): Promise<void> {
  const handle = client.workflow.getHandle(authenticationWorkflowId(transactionId));
  try {
    await handle.signal(authenticationReturnedSignal, { returnParams });
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return;
    throw error;
  }
  try {
    await withWorkflowDeadline(client, waitMs, () => handle.result());
  } catch (error) {
    // Still deciding: the buyer lands on the return_url with the charge pending, and reads it again later.
    if (!(error instanceof WorkflowWaitTimeout)) throw error;
  }
}

// ── Capture, void, refund ────────────────────────────────────────────────────────────────────────────────────

export interface OperationTarget {
  organizationId: string;
  merchantId: string;
  /** The charge's customer, when it has one: operators find a customer's captures, voids and refunds with it. */
  customerId: string | null;
  /** The transaction's status when the operation starts (operators filter on it). */
  status: string;
  currency: string;
}

const operationSummary = (target: OperationTarget, input: OperationInput) =>
  `${input.kind[0].toUpperCase()}${input.kind.slice(1)} of ${input.transactionId}` +
  (input.amount === undefined ? '' : `: ${input.amount} ${target.currency} (minor units)`);

/**
 * The charge's organization, merchant, customer and transaction id, as on its charge workflow, so an operator lists
 * a transaction's, a merchant's or a customer's operations with the charge's own query; TransactionStatus is the
 * transaction's status at the start (the workflow updates it after its move).
 */
export const operationSearchAttributes = (target: OperationTarget, transactionId: string) => [
  { key: SA.OrganizationId, value: target.organizationId },
  { key: SA.MerchantId, value: target.merchantId },
  ...(target.customerId ? [{ key: SA.CustomerId, value: target.customerId }] : []),
  { key: SA.TransactionId, value: [transactionId] },
  { key: SA.TransactionStatus, value: target.status },
];

/** Runs (or joins) the capture/void/refund workflow and returns its verdict. */
export async function runOperation(
  client: Client,
  target: OperationTarget,
  input: OperationInput,
  waitMs: number,
): Promise<OperationResult> {
  try {
    return await withWorkflowDeadline(client, waitMs, () =>
      startOrJoin(client, transactionOperationWorkflow, {
        workflowId: operationWorkflowId(input),
        taskQueue: TASK_QUEUES.payments,
        args: [input],
        staticSummary: operationSummary(target, input),
        typedSearchAttributes: operationSearchAttributes(target, input.transactionId),
      }),
    );
  } catch (error) {
    if (error instanceof WorkflowWaitTimeout) {
      // The operation keeps running: its result shows on the transaction (and refund) once it finishes.
      throw new ApiError(
        504,
        'external_service_error',
        'OPERATION_STILL_PROCESSING',
        `The ${input.kind} is still being processed; retry with the same Idempotency-Key or read the transaction later`,
        { transaction_id: input.transactionId, ...(input.refundId ? { refund_id: input.refundId } : {}) },
      );
    }
    throw new ApiError(
      502,
      'external_service_error',
      'OPERATION_UNAVAILABLE',
      `The ${input.kind} could not be completed right now`,
    );
  }
}

// ── Card verification (browser-session enrolment) ───────────────────────────────────────────────────────────

/** A token being verified is claimed under its verification workflow's id (card_tokens.used_by). */
export { cardVerificationWorkflowId };

/** Runs (or joins: a retry gets the same verification's result) the card's zero-amount verification. */
export async function runCardVerification(
  client: Client,
  input: CardVerificationInput,
  waitMs: number,
): Promise<CardVerificationResult> {
  try {
    return await withWorkflowDeadline(client, waitMs, () =>
      startOrJoin(client, cardVerificationWorkflow, {
        workflowId: cardVerificationWorkflowId(input.tokenId),
        taskQueue: TASK_QUEUES.payments,
        args: [input],
        workflowExecutionTimeout: '1 minute',
        typedSearchAttributes: [{ key: SA.MerchantId, value: input.merchantId }],
      }),
    );
  } catch {
    // The workflow failed, or gave no answer in time (worker down, timeout): nothing about the card is known here.
    throw new ApiError(
      502,
      'external_service_error',
      'VERIFICATION_UNAVAILABLE',
      'The card could not be verified right now; try again shortly',
    );
  }
}

// ── Connector credential check (organization Dashboard "test connection") ─────────────────────────────────────

/** Runs the provider's credentials check for the connector in a workflow and waits for its verdict. */
export async function runCredentialCheck(
  client: Client,
  input: CredentialCheckInput,
  waitMs: number,
): Promise<CredentialCheckResult> {
  try {
    return await withWorkflowDeadline(client, waitMs, () =>
      client.workflow.execute(connectorCredentialCheckWorkflow, {
        // A fresh id per click: each test is a new check, never the answer of an earlier one.
        workflowId: connectorCredentialCheckWorkflowId(input.connectorId, randomBase62(12)),
        taskQueue: TASK_QUEUES.payments,
        args: [input],
        workflowExecutionTimeout: '1 minute',
        staticSummary: `Credentials check of connector ${input.connectorId}`,
        typedSearchAttributes: [{ key: SA.MerchantId, value: input.merchantId }],
      }),
    );
  } catch {
    // The worker is down, the check outlived its deadline, or the connector vanished meanwhile.
    throw new ApiError(
      502,
      'external_service_error',
      'CREDENTIAL_CHECK_UNAVAILABLE',
      'The credentials could not be checked right now; try again shortly',
    );
  }
}
