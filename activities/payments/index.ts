/**
 * Charge-cascade activities. Each writes the read model through its own connection in its own database
 * transaction and is idempotent (a retried activity finds its rows and changes nothing twice). attemptCharge is
 * the only one that sees card data or credentials, and only between reading them and the adapter call.
 */
import * as attempts from '../../db/repositories/transaction-attempts.repository';
import { markCompleted, markPaymentPending } from '../../db/repositories/checkout-sessions.repository';
import { insertOrder, recordOrderStatus } from '../../db/repositories/orders.repository';
import { claimToken, spendToken } from '../../db/repositories/card-tokens.repository';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Orm } from '../../db/orm';
import { TransactionSchema, type TransactionStatus } from '../../db/entities';
import { openCredentials } from '../../domain/connectors/connectors.secrets';
import { errors } from '../../domain/platform/errors';
import { applyTransactionMove, type TriggeredBy } from '../../domain/transactions/transactions.transitions';
import { CHARGE_EVENT_OF } from '../../domain/transactions/transactions.state-table';
import { failureReasonOf } from '../../domain/transactions/transactions.failure';
import { revokeCardKeptByCharge } from '../../domain/transactions/transactions.kept-card';
import { recordEvent } from '../../domain/events/events.outbox';
import { keepChargedCard } from '../../domain/subscriptions/subscriptions.first-charge';
import { recurringReferenceOf } from '../../domain/subscriptions/subscriptions.renewal';
import { presentTransactionHeader } from '../../domain/transactions/transactions.presenter';
import { heartbeatWhile } from './heartbeat';
import { healthSignal } from '../../domain/connectors/connector-health';
import { recordCircuitTransition } from '../../domain/connectors/connector-health.repository';
import { isUnusableAttemptSetup, resolveOutcome } from './unknown-outcome';
import { attemptsOf, planCharge, type RoutingDecision } from '../../domain/routing/routing.charge-plan';
import type { ChargeAttributes } from '../../domain/routing/routing.evaluate';
import { instrumentCardOf, tokenCardOf } from '../vault/card-source';
import type { VaultSettings } from '../vault';
import type { AuthorizeRequest, CardData, Outcome, ProviderResult } from '../../domain/connectors/connector';
import { testClockRefusal } from '../../domain/test-clocks/test-clocks.charges';
import { chargeWorkflowId } from '../../workflows/charge';
import {
  UNRESOLVED_PROVIDER_CALL,
  isCardMethod,
  type CascadePolicy,
  type AttemptInput,
  type AttemptResult,
  type ChargeInput,
  type PlannedAttempt,
} from '../../workflows/lib/charge-types';

export interface PaymentDeps {
  orm: Orm;
  vault?: VaultSettings;
}

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
function decidedOutcome(status: TransactionStatus, providerReference: string | null): AttemptResult {
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

/** What routing reads of a charge. */
const routingAttributesOf = (input: ChargeInput & { randomDraw: number }): ChargeAttributes => ({
  paymentMethod: input.paymentMethod,
  currency: input.currency,
  amount: input.amount,
  cardBrand: input.cardBrand,
  binCountry: input.binCountry,
  // A saved card charged by the merchant on its own (merchant-initiated). A checkout paid with a saved card is not:
  // the buyer is there, choosing the card (customer-initiated).
  isRecurring: input.paymentInstrumentId !== null && input.cardTokenId === null && !input.checkoutSessionId,
  installments: input.installments ?? 1,
  randomDraw: input.randomDraw,
});

export function createPaymentActivities({ orm, vault }: PaymentDeps) {
  const inTransaction = <T>(work: (em: EntityManager) => Promise<T>) => orm.em.fork().transactional(work);

  /**
   * Writes the order (items, first history entry), the pending transaction (with its routing explanation) and
   * transaction.created, claims the single-use card token and moves a checkout session to payment_pending — all or
   * nothing, once per transaction id. tokenClaimed is false when the token was already claimed by another
   * transaction; storedDecision is the routing decision an earlier try stored (null on the first).
   */
  const open = (input: ChargeInput, routingDecision: RoutingDecision | null) =>
    inTransaction(async (em): Promise<{ tokenClaimed: boolean; storedDecision: RoutingDecision | null }> => {
      const existing = await em.findOne(TransactionSchema, { id: input.transactionId });
      const storedDecision = (existing?.routingDecision as RoutingDecision | null | undefined) ?? null;
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
          country: input.country,
          status: 'pending',
          capture: input.capture,
          riskScore: input.riskScore,
          installments: input.installments,
          routingProfileId: null,
          routingDecision,
          appliedRoutingRuleId: null,
          connectorId: null,
          providerReference: null,
          paymentInstructions: null,
          metadata: input.metadata,
          workflowId: chargeWorkflowId(input.transactionId),
          expiresAt: null,
          createdAt: new Date(),
          updatedAt: new Date(),
        });
        await em.flush();
        await recordEvent(em, {
          organizationId: input.organizationId,
          merchantId: input.merchantId,
          type: 'transaction.created',
          object: presentTransactionHeader(tx),
        });
        if (input.checkoutSessionId) {
          await markPaymentPending(em, input.checkoutSessionId);
        }
      }
      if (!input.cardTokenId) return { tokenClaimed: true, storedDecision };
      // The token is single-use: the first transaction to claim it charges it; the card data stays until finalize.
      return { tokenClaimed: await claimToken(em, input.cardTokenId, input.transactionId), storedDecision };
    });

  const activities = {
    /**
     * Writes the order (items, first history entry), the pending transaction and transaction.created, claims the
     * single-use card token and moves a checkout session to payment_pending — all or nothing, once per
     * transaction id. Returns false when the token was already claimed by another transaction.
     */
    async openTransaction(input: ChargeInput): Promise<{ tokenClaimed: boolean }> {
      const { tokenClaimed } = await open(input, null);
      return { tokenClaimed };
    },

    /** The routing engine's ordered connectors for this charge (empty when nothing can take it). */
    async planAttempts(
      input: ChargeInput & { randomDraw: number },
    ): Promise<{ profileId: string | null; attempts: PlannedAttempt[]; cascade?: CascadePolicy | null }> {
      const em = orm.em.fork();
      const plan = await planCharge(em, input.merchantId, routingAttributesOf(input));
      // Only histories from before openAndPlanCharge plan separately: the explanation is written on its own here.
      await em.execute(
        'update transactions set routing_decision = ?::jsonb where id = ? and routing_decision is null',
        [JSON.stringify(plan.decision), input.transactionId],
      );
      return { profileId: plan.profileId, attempts: plan.attempts, cascade: plan.cascade };
    },

    /**
     * openTransaction then planAttempts in one step (run as a local activity by the charge workflow): one workflow
     * task instead of two round trips before the first provider call. The plan is made first so its explanation is
     * written with the transaction's own insert (no extra write); a retried step finds the transaction and re-uses
     * the plan stored with it. Nothing is planned when the token was taken.
     */
    async openAndPlanCharge(
      input: ChargeInput & { randomDraw: number },
    ): Promise<{ tokenClaimed: boolean; attempts: PlannedAttempt[]; cascade?: CascadePolicy | null }> {
      const plan = await planCharge(orm.em.fork(), input.merchantId, routingAttributesOf(input));
      const { tokenClaimed, storedDecision } = await open(input, plan.decision);
      if (!tokenClaimed) return { tokenClaimed, attempts: [] };
      const attempts = storedDecision ? attemptsOf(storedDecision) : plan.attempts;
      return { tokenClaimed, attempts, cascade: plan.cascade };
    },

    /**
     * One provider call: records the attempt as started, calls the adapter with the stable idempotency key, and
     * records its outcome. A retry after a crash replays at the provider (same key) instead of charging again. An
     * unknown outcome is looked up at the same provider first; if that cannot tell, the attempt stays `unknown`
     * (error_code provider_outcome_unknown) and the cascade stops — the reconciler settles it later.
     */
    async attemptCharge(input: AttemptInput): Promise<AttemptResult> {
      if (!vault) throw new Error('This worker was started without vault settings');
      const em = orm.em.fork();
      // One round trip: the attempt row, the transaction, the connector and the card (sealed until opened here).
      const setup = await attempts.startAttemptWithSetup(em, input);
      if (!setup) throw new Error(`Transaction ${input.transactionId} of merchant ${input.merchantId} not found`);
      const tx = setup.transaction;
      // A decided charge (a re-run workflow, a reset, a retry after the fact) never reaches a provider again: under
      // a new plan it could be another connector, which has never seen this key. Its stored outcome stands.
      if (tx.status !== 'pending') return decidedOutcome(tx.status, tx.providerReference);
      let result: ProviderResult;
      try {
        const connector = setup.connector;
        // A deleted connector: the same 404 loadConnectorSecrets answers (an unusable attempt setup).
        if (!connector) throw errors.notFound('No such connector');
        // Issue 25: a test clock's customer never reaches a live connector (see domain/test-clocks).
        const refusal = testClockRefusal(connector, tx.customerOnTestClock);
        if (refusal) throw new RefusedBeforeCall(refusal);
        const credentials = openCredentials(vault.encryptionKeys, connector.credentialsEncrypted);
        let card: CardData | undefined;
        if (isCardMethod(tx.paymentMethod)) {
          card = tx.cardTokenId
            ? tokenCardOf(vault.encryptionKeys, tx.cardTokenId, setup.token)
            : instrumentCardOf(vault.encryptionKeys, tx.paymentInstrumentId!, setup.instrument);
        }
        const adapter = vault.adapterFor(connector.providerSlug);
        const request: AuthorizeRequest = {
          amount: tx.amount,
          currency: tx.currency,
          paymentMethod: isCardMethod(tx.paymentMethod)
            ? 'card'
            : (tx.paymentMethod as AuthorizeRequest['paymentMethod']),
          card,
          capture: tx.capture,
          installments: tx.installments ?? undefined,
          reference: tx.id,
          // A subscription's renewal is merchant-initiated on the stored card (recurring/MIT).
          ...(tx.subscriptionId && !tx.cardTokenId
            ? { recurring: { networkTransactionId: await recurringReferenceOf(em, tx.subscriptionId) } }
            : {}),
        };
        const call = {
          baseUrl: vault.providerBaseUrl(connector),
          credentials,
          idempotencyKey: input.idempotencyKey,
          timeoutMs: vault.providerTimeoutMs,
        };
        // A setup verification validates the card without billing it: the provider's zero-amount check.
        const verify = tx.chargeType === 'setup_verification' && card;
        result = await heartbeatWhile(async () =>
          resolveOutcome(
            adapter,
            call,
            verify ? 'verify' : 'authorize',
            verify
              ? await adapter.verifyCard(call, { card: verify, currency: tx.currency, reference: tx.id })
              : await adapter.authorize(call, request),
          ),
        );
      } catch (error) {
        // Only an unusable card or connector (deleted, token gone) is this attempt's failure. Anything else (the
        // database, the key ring) is thrown: Temporal retries the activity under the same key; it is never a decline.
        if (error instanceof RefusedBeforeCall) result = error.result;
        else if (!isUnusableAttemptSetup(error)) throw error;
        else
          result = {
            outcome: 'processing_error',
            providerReference: null,
            rawCode: 'attempt_setup_failed',
            rawMessage: (error as Error).name,
          };
      }
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
        },
        {
          connectorId: input.attempt.connectorId,
          signal: healthSignal(result.outcome, result.rawCode),
          failureCode: errorCode,
        },
      );
      if (move) {
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
      return {
        outcome: result.outcome,
        providerReference: result.providerReference,
        paymentInstructions: result.paymentInstructions ?? null,
        rawCode: result.rawCode,
      };
    },

    /**
     * An attempt whose activity failed on every try. If the attempt's outcome was written before the failure, that
     * outcome stands and is returned; otherwise the provider may or may not have charged under its idempotency key,
     * and the attempt is recorded (the row may not exist if the very first write failed) as unresolved: null.
     */
    async recordUnresolvedAttempt(input: AttemptInput): Promise<AttemptResult | null> {
      const em = orm.em.fork();
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
    },

    /**
     * The final (or pending) state after the cascade; idempotent through the state table and the move's key.
     * Histories recorded before the state table also pass `from` (always ['pending']): the table says the same.
     */
    async finalizeCharge(input: FinalizeInput): Promise<void> {
      await inTransaction(async (em) => {
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
        if (!tx) return;
        // A recurring first charge keeps its card for the renewals before the token's card data goes: also when it
        // goes pending (held for review), since the token's card data is wiped long before a late approval.
        if (input.to === 'authorized' || input.to === 'pre_authorized' || input.to === 'pending')
          await keepChargedCard(em, tx);
        // A charge that took no money leaves no saved card behind (one it kept while pending is revoked).
        if (input.to === 'failed' || input.to === 'expired' || input.to === 'canceled')
          await revokeCardKeptByCharge(em, tx);
        if (tx.cardTokenId && input.to !== 'pending') {
          // The single-use token is spent: its sealed card data goes now.
          await spendToken(em, tx.cardTokenId, tx.id);
        }
        if (tx.checkoutSessionId && (input.to === 'authorized' || input.to === 'pre_authorized')) {
          await markCompleted(em, tx.checkoutSessionId);
        }
        if (tx.checkoutSessionId && (input.to === 'failed' || input.to === 'expired' || input.to === 'canceled')) {
          // A payment that took no money leaves its checkout payable again (the buyer may try another card),
          // unless another payment of the checkout is still under way or went through.
          await em.execute(
            `update checkout_sessions c
                set status = case when c.customer_id is null then 'initiated' else 'customer_identified' end,
                    updated_at = now()
              where c.id = ? and c.status = 'payment_pending'
                and not exists (select 1 from transactions t where t.checkout_session_id = c.id and t.id <> ?
                                   and t.status not in ('failed', 'expired', 'canceled'))`,
            [tx.checkoutSessionId, tx.id],
          );
        }
      });
    },

    /** The transaction's current status (the settlement workflow reads it after a restart). */
    async transactionStatus(transactionId: string): Promise<TransactionStatus | null> {
      const tx = await orm.em.fork().findOne(TransactionSchema, { id: transactionId });
      return tx?.status ?? null;
    },
  };
  return activities;
}

/** An attempt refused by our own rules before any provider call (nothing was sent: safe to try the next one). */
class RefusedBeforeCall extends Error {
  constructor(readonly result: ProviderResult) {
    super(result.rawMessage ?? 'refused');
  }
}
