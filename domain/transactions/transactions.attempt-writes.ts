/**
 * The charge's writes to the read model, each run by one charge-workflow step inside its own database transaction
 * (the activities in activities/transactions/ open the transaction, call the provider and hand the results here):
 * opening the order and the pending transaction, recording an attempt's outcome, and the charge's final (or
 * pending) state with what follows from it (the kept or revoked card, the spent token, the checkout).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import * as attempts from '../../db/repositories/transaction-attempts.repository';
import {
  claimForPayment,
  markCompleted,
  reopenAfterUnpaidCharge,
} from '../../db/repositories/checkout-sessions.repository';
import { insertOrder, recordOrderStatus } from '../../db/repositories/orders.repository';
import { claimToken, spendToken } from '../../db/repositories/card-tokens.repository';
import {
  PaymentInstrumentSchema,
  SubscriptionSchema,
  TransactionSchema,
  type Transaction,
  type TransactionStatus,
} from '../../db/entities';
import { idFromSeed } from '../platform/ids';
import type { Outcome, ProviderResult } from '../connectors/connector';
import { healthSignal } from '../connectors/connector-health';
import { recordCircuitTransition } from '../connectors/connector-health';
import { recordEvent } from '../events/events.outbox';
import { keepTransactionCard } from '../subscriptions/subscriptions.first-transaction';
import type { RoutingDecision } from '../routing/routing.attempt-plan';
import type { StoredThreeDs } from '../../workflows/lib/three-ds';
import { applyTransactionMove, failureReasonOf, type TriggeredBy } from './transactions.transitions';
import { CHARGE_EVENT_OF } from './transactions.state-table';
import { presentTransactionHeader } from './transactions.presenter';
import {
  UNRESOLVED_PROVIDER_CALL,
  type AttemptInput,
  type AttemptResult,
  type TransactionInput,
  type PlannedAttempt,
} from '../../workflows/lib/transaction-types';

const ATTEMPT_STATUS: Record<Outcome, 'success' | 'pending' | 'failed' | 'error'> = {
  approved: 'success',
  pending: 'pending',
  soft_decline: 'failed',
  hard_decline: 'failed',
  processing_error: 'error',
  network_error: 'error',
  unknown: 'error',
};

/** What an attempt on an already decided transaction reports: its recorded success, or a stop (hard decline). */
export function decidedOutcome(status: TransactionStatus, providerReference: string | null): AttemptResult {
  const failed = status === 'failed' || status === 'expired' || status === 'canceled';
  return { outcome: failed ? 'hard_decline' : 'approved', providerReference, paymentInstructions: null };
}

export interface FinalizeInput {
  transactionId: string;
  /** The charge's verdict; the state table (CHARGE_EVENT_OF) says from which states it applies. */
  to: TransactionStatus;
  triggeredBy: TriggeredBy;
  key: string;
  successful?: {
    attempt: PlannedAttempt;
    providerReference: string | null;
    paymentInstructions: Record<string, unknown> | null;
  };
  /** Amounts authorized/captured on success (0 otherwise). */
  amountAuthorized?: number;
  amountCaptured?: number;
}

/**
 * Writes the order (items, first history entry), the pending transaction (with its routing explanation) and
 * transaction.created, claims the single-use card token and the checkout session (payment_pending) — all or nothing
 * (run it in one database transaction), once per transaction id. tokenClaimed is false when the token was already
 * claimed by another transaction, or the checkout by another payment (a checkout session takes one payment; the API
 * claimed it before starting this charge, so this only refuses a charge whose claim was given back meanwhile):
 * nothing may be charged then. storedDecision is the routing decision an earlier try stored (null on the first).
 * `workflowId` is the charge workflow's id, kept on the transaction.
 */
export async function openTransaction(
  em: EntityManager,
  input: TransactionInput,
  plan: { decision: RoutingDecision; livemode: boolean },
  workflowId: string,
): Promise<{ tokenClaimed: boolean; storedDecision: RoutingDecision | null }> {
  const existing = await em.findOne(TransactionSchema, { id: input.transactionId });
  const storedDecision = (existing?.routingDecision as RoutingDecision | null | undefined) ?? null;
  // The checkout's row is claimed before anything is written; a retried step finds its own claim again, and a
  // charge already decided is left as it is.
  const checkoutClaimed =
    !input.checkoutSessionId ||
    (existing !== null && existing.status !== 'pending') ||
    (await claimForPayment(em, input.checkoutSessionId, input.transactionId));
  if (!existing) {
    await insertOrder(
      em,
      {
        id: input.orderId,
        organizationId: input.organizationId,
        merchantId: input.merchantId,
        customerId: input.customerId,
        externalOrderId: input.externalOrderId,
        checkoutSessionId: input.checkoutSessionId,
        orderType: input.order.orderType,
        recurrence: input.order.recurrence,
        totalAmount: input.amount,
        currency: input.currency,
        metadata: input.metadata,
      },
      input.order.items,
    );
    await recordOrderStatus(em, {
      orderId: input.orderId,
      from: null,
      to: 'pending',
      triggeredBy: 'api',
      key: `${input.transactionId}:open`,
    });
    const tx = em.create(TransactionSchema, {
      id: input.transactionId,
      organizationId: input.organizationId,
      merchantId: input.merchantId,
      orderId: input.orderId,
      subscriptionId: input.subscriptionId ?? null,
      externalOrderId: input.externalOrderId,
      customerId: input.customerId,
      paymentInstrumentId: input.paymentInstrumentId,
      cardTokenId: input.cardTokenId,
      checkoutSessionId: input.checkoutSessionId,
      amount: input.amount,
      amountAuthorized: 0,
      amountCaptured: 0,
      amountRefunded: 0,
      currency: input.currency,
      paymentMethod: input.paymentMethod,
      walletType: input.walletType,
      chargeType: input.chargeType,
      livemode: plan.livemode,
      country: input.country,
      status: 'pending',
      capture: input.capture,
      riskScore: input.riskScore,
      installments: input.installments,
      routingProfileId: null,
      routingDecision: plan.decision,
      appliedRoutingRuleId: null,
      connectorId: null,
      providerReference: null,
      paymentInstructions: null,
      metadata: input.metadata,
      returnUrl: input.returnUrl ?? null,
      workflowId,
      expiresAt: null,
      createdAt: new Date(),
      updatedAt: new Date(),
    });
    await em.flush();
    await recordEvent(em, {
      organizationId: input.organizationId,
      merchantId: input.merchantId,
      livemode: tx.livemode,
      type: 'transaction.created',
      object: presentTransactionHeader(tx),
    });
  }
  if (!checkoutClaimed) return { tokenClaimed: false, storedDecision };
  if (!input.cardTokenId) return { tokenClaimed: true, storedDecision };
  // The token is single-use: the first transaction to claim it charges it; the card data stays until finalize.
  return { tokenClaimed: await claimToken(em, input.cardTokenId, input.transactionId), storedDecision };
}

/**
 * An attempt's provider result on its attempt row, with its 3-D Secure record when the attempt was a card payment's
 * (and the connector's circuit, kept in the same statement); a circuit that opened or closed gets its activity-log
 * entry and event in a transaction of its own (`inTransaction`).
 */
export async function recordAttemptOutcome(
  em: EntityManager,
  inTransaction: <T>(work: (em: EntityManager) => Promise<T>) => Promise<T>,
  input: AttemptInput,
  result: ProviderResult,
  threeDs?: StoredThreeDs,
): Promise<void> {
  const status = ATTEMPT_STATUS[result.outcome];
  // An outcome nobody could establish is left for the reconciler under the code it looks for.
  const errorCode = result.outcome === 'unknown' ? UNRESOLVED_PROVIDER_CALL : result.rawCode;
  // The connector's circuit is kept in the attempt's own statement (no extra write for a healthy connector).
  const move = await attempts.recordAttemptResult(
    em,
    input,
    {
      status,
      outcome: result.outcome,
      errorCode: status === 'success' || status === 'pending' ? null : errorCode,
      message: result.rawMessage,
      providerReference: result.providerReference,
      networkTransactionId: status === 'success' ? (result.networkTransactionId ?? null) : null,
      threeDs,
    },
    {
      connectorId: input.attempt.connectorId,
      signal: healthSignal(result.outcome, result.rawCode),
      failureCode: errorCode,
    },
  );
  if (!move) return;
  // Rare (a circuit opened or closed): its activity-log entry and event, in their own transaction.
  await inTransaction((tx) =>
    recordCircuitTransition(tx, {
      connectorId: input.attempt.connectorId,
      transition: move.to === 'open' ? 'opened' : 'closed',
      actor: { type: 'system', id: null },
      reason: move.reason,
    }),
  );
}

/**
 * An attempt whose activity failed on every try. If the attempt's outcome was written before the failure, that
 * outcome stands and is returned; otherwise the provider may or may not have charged under its idempotency key,
 * and the attempt is recorded (the row may not exist if the very first write failed) as unresolved: null.
 */
export async function settleAttemptWithoutAnswer(
  em: EntityManager,
  input: AttemptInput,
): Promise<AttemptResult | null> {
  const recorded = await attempts.readAttempt(em, input.transactionId, input.attemptNumber);
  if (recorded && recorded.status !== 'pending' && recorded.outcome && recorded.outcome !== 'pending') {
    return {
      outcome: recorded.outcome as Outcome,
      providerReference: recorded.providerReference,
      paymentInstructions: null,
    };
  }
  await attempts.recordUnresolvedAttempt(em, input, UNRESOLVED_PROVIDER_CALL);
  return null;
}

/**
 * The charge's final (or pending) state after the cascade or the settlement, with what follows from it; run in one
 * database transaction. Idempotent through the state table and the move's key.
 */
/** Returns the failure_code written (null when the charge took money or the move was already made). */
export async function finalizeTransaction(em: EntityManager, input: FinalizeInput): Promise<string | null> {
  const expiresAt = input.successful?.paymentInstructions?.expires_at;
  const event = CHARGE_EVENT_OF[input.to];
  if (!event) throw new Error(`A charge cannot end ${input.to}`);
  // A charge that took no money says why, also when no provider was tried.
  const failure = await failureReasonOf(em, input.transactionId, input.to);
  const tx = await applyTransactionMove(em, input.transactionId, {
    event,
    triggeredBy: input.triggeredBy,
    key: input.key,
    patch: {
      ...(failure ?? {}),
      ...(input.amountAuthorized !== undefined ? { amountAuthorized: input.amountAuthorized } : {}),
      ...(input.amountCaptured !== undefined ? { amountCaptured: input.amountCaptured } : {}),
      ...(input.successful
        ? {
            appliedRoutingRuleId: input.successful.attempt.nodeId,
            connectorId: input.successful.attempt.connectorId,
            providerReference: input.successful.providerReference,
            paymentInstructions: input.successful.paymentInstructions,
            expiresAt:
              typeof expiresAt === 'string' && !Number.isNaN(Date.parse(expiresAt)) ? new Date(expiresAt) : null,
          }
        : {}),
    },
  });
  if (!tx) return null;
  // A recurring first charge keeps its card for the renewals before the token's card data goes: also when it
  // goes pending (held for review), since the token's card data is wiped long before a late approval.
  if (input.to === 'authorized' || input.to === 'pre_authorized' || input.to === 'pending')
    await keepTransactionCard(em, tx);
  // A charge that took no money leaves no saved card behind (one it kept while pending is revoked).
  if (input.to === 'failed' || input.to === 'expired' || input.to === 'canceled') await revokeCardKeptByCharge(em, tx);
  if (tx.cardTokenId && input.to !== 'pending') {
    // The single-use token is spent: its sealed card data goes now.
    await spendToken(em, tx.cardTokenId, tx.id);
  }
  if (tx.checkoutSessionId && (input.to === 'authorized' || input.to === 'pre_authorized')) {
    await markCompleted(em, tx.checkoutSessionId);
  }
  if (tx.checkoutSessionId && (input.to === 'failed' || input.to === 'expired' || input.to === 'canceled')) {
    // A payment that took no money leaves its checkout payable again (the buyer may try another card).
    await reopenAfterUnpaidCharge(em, tx.checkoutSessionId, tx.id);
  }
  return failure?.failureCode ?? null;
}

/**
 * The reconciler's verdict on an attempt left unresolved (provider_outcome_unknown): its outcome as the provider's
 * lookup found it (or as its payment notification said) and the reconciled code, so the attempt no longer waits for
 * reconciliation. `providerReference` names the provider's payment when there is no `found` result to carry it (a
 * notified decline).
 */
export async function recordReconciledAttempt(
  em: EntityManager,
  attempt: Pick<AttemptInput, 'transactionId' | 'attemptNumber'>,
  verdict: { code: string; message: string; found: ProviderResult | null; providerReference?: string | null },
): Promise<void> {
  await attempts.settleUnresolvedAttempt(
    em,
    attempt,
    {
      outcome: verdict.found?.outcome ?? null,
      code: verdict.code,
      message: verdict.message,
      providerReference: verdict.found?.providerReference ?? verdict.providerReference ?? null,
    },
    UNRESOLVED_PROVIDER_CALL,
  );
}

/**
 * What the charge's own resolution found for an attempt it left unresolved (provider_outcome_unknown): the provider's
 * answer replaces the unknown one, as if the call had answered it (status, outcome, code, the provider's payment),
 * with the authentication it settled (`threeDs`, in the same statement).
 * The caller read the attempt as unresolved while its transaction is pending (nothing else writes it then). The
 * connector's circuit is left alone: a late lookup says nothing about the connector's health now.
 */
export async function recordAttemptFinding(
  em: EntityManager,
  attempt: Pick<AttemptInput, 'transactionId' | 'attemptNumber'>,
  found: ProviderResult,
  threeDs?: StoredThreeDs,
): Promise<void> {
  const status = ATTEMPT_STATUS[found.outcome];
  await attempts.recordAttemptResult(em, attempt, {
    status,
    outcome: found.outcome,
    errorCode: status === 'success' || status === 'pending' ? null : found.rawCode,
    message: found.rawMessage,
    providerReference: found.providerReference,
    networkTransactionId: status === 'success' ? (found.networkTransactionId ?? null) : null,
    threeDs,
  });
}

/**
 * The card a recurring first charge kept as the customer's instrument while the charge was pending (held for
 * review: keepTransactionCard, domain/subscriptions/subscriptions.first-transaction.ts) must not outlive a charge that then
 * takes no money: a failed, expired or canceled charge revokes it, as DELETE /payment-instruments would. The row and
 * the transaction's payment_instrument_id stay (what was charged); the card can be enrolled again.
 */
async function revokeCardKeptByCharge(em: EntityManager, tx: Transaction): Promise<void> {
  // Only the instrument this charge created (its id derives from the transaction): a card the customer had saved
  // before, which the charge merely found, stays theirs.
  const keptId = idFromSeed('pi', tx.id);
  if (tx.paymentInstrumentId !== keptId) return;
  const instrument = await em.findOne(PaymentInstrumentSchema, { id: keptId, merchantId: tx.merchantId });
  if (!instrument || instrument.status === 'revoked') return;
  // Already used by another charge or a subscription meanwhile: it is the customer's card now, not this charge's.
  const usedElsewhere =
    (await em.count(TransactionSchema, { paymentInstrumentId: keptId, id: { $ne: tx.id } })) > 0 ||
    (await em.count(SubscriptionSchema, { paymentInstrumentId: keptId })) > 0;
  if (usedElsewhere) return;
  const now = new Date();
  instrument.status = 'revoked';
  instrument.revokedAt = now;
  instrument.updatedAt = now;
  await em.flush();
}
