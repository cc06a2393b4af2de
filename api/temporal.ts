/**
 * The API's one gateway to Temporal: every workflow start, start-or-join, signal and wait the API makes goes
 * through a typed function here, with the workflow ids, task queues, search attributes and summaries operators
 * see, and the one mapping of "Temporal could not be reached" to a retryable 502. Route handlers and services
 * never touch `client.workflow` themselves.
 */
import {
  Client,
  Connection,
  isGrpcServiceError,
  ServiceError,
  WorkflowExecutionAlreadyStartedError,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  type Workflow,
  type WorkflowResultType,
  type WorkflowStartOptions,
} from '@temporalio/client';
import { ApiError } from '../domain/platform/errors';
import { randomBase62 } from '../domain/platform/ids';
import {
  cardVerificationWorkflow,
  cardVerificationWorkflowId,
  type CardVerificationInput,
  type CardVerificationResult,
} from '../workflows/card-verification';
import { chargeWorkflow, chargeWorkflowId, providerEventSignal, settlementWorkflowId } from '../workflows/charge';
import {
  connectorCredentialCheckWorkflow,
  connectorCredentialCheckWorkflowId,
  type CredentialCheckInput,
  type CredentialCheckResult,
} from '../workflows/connector-credential-check';
import { checkoutExpiryWorkflow, checkoutExpiryWorkflowId, expiresAtChangedSignal } from '../workflows/checkout-expiry';
import { SEARCH_ATTRIBUTE_KEYS as SA, TASK_QUEUES } from '../workflows/definitions';
import type { ChargeInput, OperationInput, SettlementSignal } from '../workflows/lib/charge-types';
import {
  operationWorkflowId,
  transactionOperationWorkflow,
  type OperationResult,
} from '../workflows/transaction-operation';
import { deliveryStartOptions, deliveryWorkflowId, webhookDeliveryWorkflow } from '../workflows/webhook-delivery';
import { webhookRecoverWorkflow } from '../workflows/webhook-fan-out';
import { temporal as proto } from '@temporalio/proto';
import {
  billingResumedSignal,
  cancelUpdate,
  changeOfferUpdate,
  changePaymentInstrumentUpdate,
  pauseUpdate,
  reactivateUpdate,
  resumeUpdate,
  subscriptionWorkflow,
  subscriptionWorkflowId,
  type CancelRequest,
  type ChangeInstrumentRequest,
  type ChangeOfferRequest,
  type PauseRequest,
} from '../workflows/subscription';
import type { Caller } from '../workflows/lib/subscription-moves';
import type { SubscriptionState } from '../workflows/lib/subscription-state';
import { ApplicationFailure } from '@temporalio/common';

export interface TemporalDeps {
  connection: Connection;
  client: Client;
}

export async function connectTemporal(address: string, namespace: string): Promise<TemporalDeps> {
  const connection = await Connection.connect({ address });
  return { connection, client: new Client({ connection, namespace }) };
}

// ── Health (readiness) ───────────────────────────────────────────────────────────────────────────────────────

/** Throws unless the Temporal frontend answers before the deadline (epoch ms). */
export async function pingTemporal({ connection, client }: TemporalDeps, deadline: number): Promise<void> {
  await connection.withDeadline(deadline, () => client.workflowService.getSystemInfo({}));
}

export type Poller = {
  lastAccessTime?: { seconds?: number | { toNumber(): number } | null; nanos?: number | null } | null;
};

/** The workflow pollers Temporal lists on each of our task queues (it keeps a dead worker's for minutes). */
export async function workflowPollers(
  { connection, client }: TemporalDeps,
  namespace: string,
  deadline: number,
): Promise<Record<string, Poller[]>> {
  const queues = Object.values(TASK_QUEUES);
  const responses = await Promise.all(
    queues.map((name) =>
      connection.withDeadline(deadline, () =>
        client.workflowService.describeTaskQueue({
          namespace,
          taskQueue: { name },
          taskQueueType: proto.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
        }),
      ),
    ),
  );
  return Object.fromEntries(queues.map((name, i) => [name, responses[i].pollers]));
}

/** gRPC statuses meaning the Temporal frontend could not be reached in time (after the client's own retries). */
const UNREACHABLE = new Set([14 /* UNAVAILABLE */, 4 /* DEADLINE_EXCEEDED */]);

/**
 * Temporal unreachable while starting or signalling a workflow: the request did not happen (its database
 * transaction rolls back), so it is a retryable 502 like any other unreachable dependency, not an internal error.
 * The request-context middleware applies it to anything a handler throws.
 */
export function fromUnreachableTemporal(error: unknown): ApiError | undefined {
  const grpc = error instanceof ServiceError ? error.cause : error;
  if (!isGrpcServiceError(grpc) || !UNREACHABLE.has(grpc.code)) return undefined;
  return new ApiError(
    502,
    'external_service_error',
    'WORKFLOW_SERVICE_UNAVAILABLE',
    'The workflow service is unreachable; retry shortly',
  );
}

/**
 * Starts the workflow and waits for its result; when one with the id already exists — running (USE_EXISTING) or
 * closed (REJECT_DUPLICATE) — waits for that one instead. Ids derive from the Idempotency-Key, so a retry of a
 * request whose answer was lost joins the first run and never does its work twice.
 */
async function startOrJoin<W extends Workflow>(
  client: Client,
  workflow: W,
  options: WorkflowStartOptions<W> & { workflowId: string },
): Promise<WorkflowResultType<W>> {
  try {
    return await client.workflow.execute(workflow, {
      ...options,
      workflowIdConflictPolicy: 'USE_EXISTING',
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
    });
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    return client.workflow.getHandle<W>(options.workflowId).result();
  }
}

/** A wait on a workflow passed its deadline; the workflow itself keeps running. */
class WorkflowWaitTimeout extends Error {
  constructor() {
    super('The wait on the workflow passed its deadline');
  }
}

/**
 * Every wait of the API on a workflow has a deadline (WORKFLOW_WAIT_MS): a stopped worker must not keep requests
 * (and what they hold) waiting forever. When it passes, the pending Temporal calls are aborted and
 * WorkflowWaitTimeout is thrown; the caller answers "still processing, read it later".
 */
async function withWorkflowDeadline<T>(client: Client, waitMs: number, work: () => Promise<T>): Promise<T> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      reject(new WorkflowWaitTimeout());
      controller.abort();
    }, waitMs);
  });
  try {
    // The race answers on time even if an aborted call were slow to settle; the abort frees its gRPC stream.
    return await Promise.race([client.withAbortSignal(controller.signal, work), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

// ── Charges ──────────────────────────────────────────────────────────────────────────────────────────────────

/** The one line the Temporal UI shows for the charge (amounts in minor units; never card or customer data). */
export const chargeSummary = (input: ChargeInput) =>
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

/** Starts (or joins) the charge workflow and waits for its first outcome: authorized, pre_authorized, failed or pending. */
export async function runCharge(client: Client, input: ChargeInput, waitMs: number): Promise<void> {
  try {
    await withWorkflowDeadline(client, waitMs, () =>
      startOrJoin(client, chargeWorkflow, {
        workflowId: chargeWorkflowId(input.transactionId),
        taskQueue: TASK_QUEUES.payments,
        args: [input],
        staticSummary: chargeSummary(input),
        typedSearchAttributes: [
          { key: SA.OrganizationId, value: input.organizationId },
          { key: SA.MerchantId, value: input.merchantId },
          ...(input.customerId ? [{ key: SA.CustomerId, value: input.customerId }] : []),
          { key: SA.PaymentMethod, value: input.paymentMethod },
          { key: SA.TransactionStatus, value: 'pending' },
        ],
      }),
    );
  } catch (error) {
    throw chargeNotAnswered(error, input.transactionId);
  }
}

/** A retried charge whose transaction already exists: waits for its workflow rather than charging again. */
export async function awaitCharge(client: Client, transactionId: string, waitMs: number): Promise<void> {
  try {
    await withWorkflowDeadline(client, waitMs, () =>
      client.workflow.getHandle(chargeWorkflowId(transactionId)).result(),
    );
  } catch (error) {
    throw chargeNotAnswered(error, transactionId);
  }
}

/**
 * Hands a provider's pix/boleto verdict to the transaction's settlement workflow. False when that workflow does
 * not exist (yet): the webhook raced the charge's last step.
 */
export async function signalProviderEvent(
  client: Client,
  transactionId: string,
  event: SettlementSignal,
): Promise<boolean> {
  try {
    await client.workflow.getHandle(settlementWorkflowId(transactionId)).signal(providerEventSignal, event);
    return true;
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return false;
    throw error;
  }
}

// ── Capture, void, refund ────────────────────────────────────────────────────────────────────────────────────

export interface OperationTarget {
  merchantId: string;
  /** The transaction's status when the operation starts (operators filter on it). */
  status: string;
  currency: string;
}

const operationSummary = (target: OperationTarget, input: OperationInput) =>
  `${input.kind[0].toUpperCase()}${input.kind.slice(1)} of ${input.transactionId}` +
  (input.amount === undefined ? '' : `: ${input.amount} ${target.currency} (minor units)`);

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
        typedSearchAttributes: [
          { key: SA.MerchantId, value: target.merchantId },
          { key: SA.TransactionStatus, value: target.status },
        ],
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

// ── Checkout expiry ──────────────────────────────────────────────────────────────────────────────────────────

export interface CheckoutExpiryRequest {
  sessionId: string;
  merchantId: string;
  expiresAt: Date;
}

/**
 * Starts the session's expiry workflow, or tells the running one the new expires_at. signalWithStart makes
 * a repeated call harmless: one workflow per session, always holding the latest time.
 */
export async function scheduleCheckoutExpiry(
  client: Client,
  { sessionId, merchantId, expiresAt }: CheckoutExpiryRequest,
  taskQueue: string = TASK_QUEUES.payments,
): Promise<void> {
  const iso = expiresAt.toISOString();
  await client.workflow.signalWithStart(checkoutExpiryWorkflow, {
    workflowId: checkoutExpiryWorkflowId(sessionId),
    taskQueue,
    args: [{ sessionId, expiresAt: iso }],
    signal: expiresAtChangedSignal,
    signalArgs: [iso],
    typedSearchAttributes: [{ key: SA.MerchantId, value: merchantId }],
  });
}

// ── Webhook redeliveries and recoveries (ids never collide with automatic deliveries) ───────────────────────

export interface ManualDelivery {
  eventId: string;
  configId: string;
  merchantId: string;
  eventType: string;
}

/** One attempt, under webhook-<evt>-<whc>-manual-<random>. Returns the workflow id. */
export async function startRedelivery(
  client: Client,
  delivery: ManualDelivery,
  taskQueue: string = TASK_QUEUES.webhooks,
): Promise<string> {
  const suffix = `manual-${randomBase62(12)}`;
  await client.workflow.start(
    webhookDeliveryWorkflow,
    deliveryStartOptions({ ...delivery, trigger: 'manual' }, taskQueue, suffix),
  );
  return deliveryWorkflowId(delivery.eventId, delivery.configId, suffix);
}

export interface Recovery {
  merchantId: string;
  configId: string;
  since: Date;
  until: Date;
}

/** A recovery workflow (webhook-recover-<whc>-<random>) whose deliveries carry the suffix recover-<random>. */
export async function startRecovery(
  client: Client,
  recovery: Recovery,
  taskQueue: string = TASK_QUEUES.webhooks,
): Promise<string> {
  const token = randomBase62(12);
  const workflowId = `webhook-recover-${recovery.configId}-${token}`;
  await client.workflow.start(webhookRecoverWorkflow, {
    workflowId,
    taskQueue,
    args: [
      {
        merchantId: recovery.merchantId,
        configId: recovery.configId,
        since: recovery.since.toISOString(),
        until: recovery.until.toISOString(),
        suffix: `recover-${token}`,
      },
    ],
    typedSearchAttributes: [{ key: SA.MerchantId, value: recovery.merchantId }],
  });
  return workflowId;
}

// ── Subscriptions ────────────────────────────────────────────────────────────────────────────────────────────

/** Starts the subscription's workflow (a second start of the same subscription is a no-op). */
export async function startSubscriptionWorkflow(
  client: Client,
  state: SubscriptionState,
  taskQueue: string = TASK_QUEUES.payments,
): Promise<void> {
  try {
    await client.workflow.start(subscriptionWorkflow, {
      workflowId: subscriptionWorkflowId(state.subscriptionId),
      taskQueue,
      args: [{ state }],
      typedSearchAttributes: [
        { key: SA.OrganizationId, value: state.organizationId },
        { key: SA.MerchantId, value: state.merchantId },
        { key: SA.CustomerId, value: state.customerId },
        { key: SA.SubscriptionStatus, value: state.status },
      ],
    });
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
}

export type SubscriptionOperationRequest =
  | { kind: 'cancel'; args: CancelRequest }
  | { kind: 'reactivate'; args: Caller }
  | { kind: 'pause'; args: PauseRequest }
  | { kind: 'resume'; args: Caller }
  | { kind: 'change_offer'; args: ChangeOfferRequest }
  | { kind: 'change_payment_instrument'; args: ChangeInstrumentRequest };

/**
 * Runs one operation as an Update of the subscription's workflow and waits until the workflow has written it to
 * the read model. updateId (from the Idempotency-Key when sent) makes a retried request join the first Update.
 * A move the state forbids (the workflow's validator, or its re-check under the lock) is a 422.
 */
export async function updateSubscription(
  client: Client,
  subscriptionId: string,
  request: SubscriptionOperationRequest,
  updateId: string,
  waitMs: number,
): Promise<SubscriptionState> {
  const handle = client.workflow.getHandle<typeof subscriptionWorkflow>(subscriptionWorkflowId(subscriptionId));
  const options = { updateId };
  try {
    return await withWorkflowDeadline(client, waitMs, () => {
      switch (request.kind) {
        case 'cancel':
          return handle.executeUpdate(cancelUpdate, { ...options, args: [request.args] });
        case 'reactivate':
          return handle.executeUpdate(reactivateUpdate, { ...options, args: [request.args] });
        case 'pause':
          return handle.executeUpdate(pauseUpdate, { ...options, args: [request.args] });
        case 'resume':
          return handle.executeUpdate(resumeUpdate, { ...options, args: [request.args] });
        case 'change_offer':
          return handle.executeUpdate(changeOfferUpdate, { ...options, args: [request.args] });
        case 'change_payment_instrument':
          return handle.executeUpdate(changePaymentInstrumentUpdate, { ...options, args: [request.args] });
      }
    });
  } catch (error) {
    if (error instanceof WorkflowUpdateFailedError && error.cause instanceof ApplicationFailure && error.cause.type) {
      throw new ApiError(422, 'business_rule_error', error.cause.type, error.cause.message, {
        subscription_id: subscriptionId,
      });
    }
    if (error instanceof WorkflowNotFoundError) {
      throw new ApiError(422, 'business_rule_error', 'INVALID_STATE_TRANSITION', 'The subscription has ended', {
        subscription_id: subscriptionId,
      });
    }
    if (error instanceof WorkflowWaitTimeout) {
      throw new ApiError(
        504,
        'external_service_error',
        'SUBSCRIPTION_STILL_PROCESSING',
        'The operation is still being processed; retry with the same Idempotency-Key or read the subscription later',
        { subscription_id: subscriptionId },
      );
    }
    throw error;
  }
}

/**
 * Tells held subscriptions that billing may be possible again (a connector activated, an offer restored): each
 * looks again shortly after (the change commits first). A subscription whose workflow has ended is skipped.
 */
export async function signalBillingResumed(client: Client, subscriptionIds: string[]): Promise<void> {
  for (const id of subscriptionIds) {
    try {
      await client.workflow.getHandle(subscriptionWorkflowId(id)).signal(billingResumedSignal);
    } catch (error) {
      if (!(error instanceof WorkflowNotFoundError)) throw error;
    }
  }
}
