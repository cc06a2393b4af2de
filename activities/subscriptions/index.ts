/**
 * The subscription workflow's activities: write its steps to the read model (through domain/subscriptions) and
 * prepare a renewal charge for the charge-cascade workflow. Every id a renewal uses derives from the subscription
 * id, the cycle number and the try, so a retried activity or a replayed workflow never bills a cycle twice.
 */
import { ApplicationFailure } from '@temporalio/activity';
import { attemptFailureCode } from '../../domain/connectors/failure-codes';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Orm } from '../../db/orm';
import { ApiError } from '../../domain/platform/errors';
import {
  MerchantConnectorSchema,
  MerchantSchema,
  OfferSchema,
  TransactionAttemptSchema,
  TransactionSchema,
} from '../../db/entities';
import { idFromSeed } from '../../domain/platform/ids';
import { applySubscriptionStep } from '../../domain/subscriptions/subscriptions.steps';
import { createSubscriptionForTransaction } from '../../domain/subscriptions/subscriptions.first-transaction';
import { renewAtCycleLimit } from '../../domain/subscriptions/subscriptions.cycle-limit';
import { readRenewal } from '../../domain/subscriptions/subscriptions.renewal';
import type { RenewalLinkSettings } from '../../domain/subscriptions/subscriptions.authentication';
import {
  markTestClockReady,
  testClockOfTransaction,
  testClockSubscriptionIds,
} from '../../db/repositories/test-clocks.repository';
import { CHARGE_IN_DOUBT } from '../../domain/transactions/transactions.in-doubt';
import { UNRESOLVED_PROVIDER_CALL, type TransactionInput } from '../../workflows/lib/transaction-types';
import { DEFAULT_DUNNING_SCHEDULE_DAYS, SUBSCRIPTION_ALREADY_EXISTS } from '../../workflows/lib/subscription-rules';
import type { SubscriptionState, SubscriptionStep } from '../../workflows/lib/subscription-state';
import { UNPAID_FINAL } from '../../domain/transactions/transactions.state-table';

export interface SubscriptionDeps {
  orm: Orm;
  /** The deployment's dunning schedule (config.subscriptions); the default 1, 3, 5, 7 days without one. */
  dunningScheduleDays?: readonly number[];
  /** Renewal authentication links (event and e-mail): the public base URL and the keys that seal them and mail. */
  renewalLinks?: RenewalLinkSettings;
}

export interface RenewalChargeRequest {
  state: SubscriptionState;
  /** The cycle this charge pays for (cycles_completed + 1). */
  cycleNumber: number;
  /** 0 for the renewal itself, n for the n-th dunning retry. */
  attempt: number;
  /** n for the n-th retry of that try after it was refused for an outage (absent: the first charge of the try). */
  retry?: number;
  amount: number;
  /**
   * The customer's on-session charge through this renewal authentication link: customer-initiated (no
   * subscription_id on the transaction, which would make it merchant-initiated; metadata names the subscription).
   */
  onSessionLinkId?: string;
}

/** A renewal the workflow can send to the charge cascade, or why the saved instrument cannot be charged. */
export type PreparedRenewal = { charge: TransactionInput } | { refused: InstrumentRefusal };

/** Document 3: "Expired and revoked instruments cannot be charged." Said as the decline code dunning works with. */
export type InstrumentRefusal = 'payment_instrument_revoked' | 'expired_card';

/** The verdict on a renewal charge as stored (never guessed from how its workflow ended). */
export type RenewalOutcome =
  | { status: 'paid' }
  | { status: 'declined'; declineCode: string | null }
  /** Not final yet: held at the provider, or an unknown provider outcome the reconciler has not settled. */
  | { status: 'pending' }
  /** Still unknown past its deadline, escalated to the merchant: the provider may have taken it, so not charged again. */
  | { status: 'in_doubt' }
  /**
   * Failed without any issuer judging the card, so it is no decline: no route (every connector's circuit open), a
   * processing or network error at the provider or ours, a charge whose workflow never opened it.
   */
  | { status: 'unprocessed' };

/** Why the billing engine refunds a charge in full (the refund's reason). */
export type GivenBackReason = 'duplicate_subscription' | 'subscription_ended';

export function createSubscriptionActivities({ orm, dunningScheduleDays, renewalLinks }: SubscriptionDeps) {
  return {
    /** The deployment's settings a new subscription workflow gets as input (recorded in its history once). */
    async subscriptionSettings(): Promise<{ dunningScheduleDays: number[] }> {
      return { dunningScheduleDays: [...(dunningScheduleDays ?? DEFAULT_DUNNING_SCHEDULE_DAYS)] };
    },

    /**
     * The subscription of a paid recurring first charge (row, creation/trial_start transitions, subscription.created,
     * the transaction's subscription_id), once: its id derives from the transaction id. null when there is none.
     */
    async createSubscriptionForTransaction(input: {
      transactionId: string;
      at: string;
    }): Promise<SubscriptionState | null> {
      try {
        return await orm.em.fork().transactional(async (em) => {
          // A customer on a test clock: the subscription starts at the clock's time and runs on the clock.
          const clock = await testClockOfTransaction(em, input.transactionId);
          const at = clock ? clock.frozenTime : new Date(input.at);
          const state = await createSubscriptionForTransaction(em, input.transactionId, at);
          if (!state || !clock) return state;
          const time = clock.frozenTime.toISOString();
          return { ...state, testClock: { id: clock.id, now: time, frozenTime: time, reportTo: null } };
        });
      } catch (error) {
        // Another first charge of the same plan won the race after both passed the check before charging: not
        // retryable; the charge workflow gives this charge back (docs/api-decisions.md).
        if (error instanceof ApiError && error.code === SUBSCRIPTION_ALREADY_EXISTS) {
          throw ApplicationFailure.create({
            type: SUBSCRIPTION_ALREADY_EXISTS,
            message: error.message,
            nonRetryable: true,
          });
        }
        throw error;
      }
    },

    /**
     * The refund id of a charge the billing engine gives back (one per transaction and reason): a first charge
     * that lost the race for its plan, or a renewal paid after its subscription ended.
     */
    async givenBackRefundId(input: { transactionId: string; reason: GivenBackReason }): Promise<string> {
      return idFromSeed('ref', `${input.transactionId}:${input.reason}`);
    },

    /** At the cycle limit of an offer that renews: the old subscription expires and the new one's state is returned. */
    async renewAtCycleLimit(input: { state: SubscriptionState; key: string; at: string }) {
      return orm.em
        .fork()
        .transactional((em) => renewAtCycleLimit(em, { state: input.state, key: input.key, at: new Date(input.at) }));
    },

    /** The subscriptions a test clock's advance moves: every live one of the clock's customers. */
    async testClockSubscriptionIds(input: { clockId: string }): Promise<string[]> {
      return testClockSubscriptionIds(orm.em.fork(), input.clockId);
    },

    /** Every subscription of the clock reached frozenTime: the clock is ready (unless it moved or ended since). */
    async markTestClockReady(input: { clockId: string; frozenTime: string }): Promise<void> {
      await markTestClockReady(orm.em.fork(), input.clockId, input.frozenTime);
    },

    /** One workflow step onto the read model, transitions and events; a repeat of the last step changes nothing. */
    async writeSubscriptionStep(step: SubscriptionStep): Promise<void> {
      await orm.em.fork().transactional((em) => applySubscriptionStep(em, step, renewalLinks));
    },

    /**
     * A due renewal's reads in one statement: the billing holds of billingHoldOf, then the charge-cascade input of
     * the renewal (order renewal/subsequent, the saved instrument, derived ids), or a refusal when the instrument is
     * revoked or expired: it is never charged. Held: nothing is charged.
     */
    async prepareRenewal(request: RenewalChargeRequest): Promise<PreparedRenewal | { held: string[] }> {
      const { state } = request;
      const reads = await readRenewal(orm.em.fork(), state);
      if (reads.held.length) return { held: reads.held };
      // As findOneOrFail did: a missing row is a fault, retried until someone looks (never a charge without it).
      if (!reads.subscription || !reads.offer || !reads.product) {
        throw new Error(`renewal of ${state.subscriptionId}: its subscription, offer or product row is missing`);
      }
      const refused = instrumentRefusal(reads.instrument);
      if (refused) return { refused };
      return { charge: renewalCharge(request, reads.subscription, reads.offer, reads.product, reads.instrument) };
    },

    /**
     * What became of a renewal charge, read from the transaction itself: paid, declined (with the last attempt's
     * decline code), or pending — still at the provider, or failed with an attempt whose outcome is unknown until
     * the reconciler settles it (the provider may have charged: nothing is retried before that is known) — or in
     * doubt, when no one could tell by the deadline.
     */
    async renewalOutcome(transactionId: string): Promise<RenewalOutcome> {
      return outcomeOf(orm.em.fork(), transactionId);
    },

    /**
     * renewalOutcome and, when paid, the workflow's step for it (prepared before the read) in the same database
     * transaction: one activity, not two. A repeat of the step changes nothing.
     */
    async settleRenewal(input: { transactionId: string; ifPaid: SubscriptionStep }): Promise<RenewalOutcome> {
      return orm.em.fork().transactional(async (em) => {
        const outcome = await outcomeOf(em, input.transactionId);
        if (outcome.status === 'paid') await applySubscriptionStep(em, input.ifPaid, renewalLinks);
        return outcome;
      });
    },

    /**
     * Document 3's billing holds: a renewal is charged only while the merchant has an active connector and the offer
     * is still available (active, not deleted). Returns why billing is held, or an empty list.
     */
    async billingHoldOf(input: { merchantId: string; offerId: string }): Promise<string[]> {
      const em = orm.em.fork();
      const [connectors, offer, merchant] = await Promise.all([
        em.count(MerchantConnectorSchema, { merchantId: input.merchantId, isActive: true }),
        em.findOne(OfferSchema, { id: input.offerId, merchantId: input.merchantId }),
        em.findOne(MerchantSchema, { id: input.merchantId }, { fields: ['status'] }),
      ]);
      const reasons: string[] = [];
      // A suspended or inactive merchant is not billed (Document 3: "temporarily blocked"); reactivation releases it.
      if (merchant && merchant.status !== 'active') reasons.push('merchant_not_active');
      if (connectors === 0) reasons.push('no_active_connector');
      // Archived means no new sign-ups; its subscribers keep renewing. Only a deleted offer is unavailable.
      if (!offer || offer.deletedAt !== null) reasons.push('offer_unavailable');
      return reasons;
    },
  };
}

/** What became of a renewal charge, read from the transaction itself (renewalOutcome). */
async function outcomeOf(em: EntityManager, transactionId: string): Promise<RenewalOutcome> {
  const tx = await em.findOne(TransactionSchema, { id: transactionId });
  // The cascade never opened it (its workflow failed before): nothing was charged, and no issuer saw the card.
  if (!tx) return { status: 'unprocessed' };
  if (tx.status === 'pending') return { status: 'pending' };
  if (!UNPAID_FINAL.includes(tx.status)) return { status: 'paid' };
  const attempts = await em.find(TransactionAttemptSchema, { transactionId }, { orderBy: { attemptNumber: 'desc' } });
  if (attempts.some((attempt) => attempt.errorCode === UNRESOLVED_PROVIDER_CALL)) return { status: 'pending' };
  if (attempts.some((attempt) => attempt.errorCode === CHARGE_IN_DOUBT)) return { status: 'in_doubt' };
  const judged = attempts.find(issuerJudged);
  if (!judged) return { status: 'unprocessed' };
  // The dunning history speaks the one failure_code vocabulary, whatever the provider.
  return {
    status: 'declined',
    declineCode: attemptFailureCode(judged.providerSlug, judged.errorCode ?? null, judged.outcome ?? null),
  };
}

/**
 * An attempt on which the card was judged: the issuer (or the provider for it) declined it, or the provider took
 * the payment (pending, approved) and failed it later. Processing and network errors, and attempts reconciled as
 * not charged or given back, say nothing about the card.
 */
const issuerJudged = (attempt: { status: string; outcome: string | null }) =>
  attempt.outcome === 'soft_decline' ||
  attempt.outcome === 'hard_decline' ||
  attempt.status === 'pending' ||
  attempt.status === 'success';

/** The charge-cascade input of a renewal: order renewal/subsequent, the saved instrument, ids derived from the try. */
function renewalCharge(
  { state, cycleNumber, attempt, retry, amount, onSessionLinkId }: RenewalChargeRequest,
  sub: { country: string; preferredInstallments: number },
  offer: { id: string; name: string },
  product: { id: string; name: string },
  instrument: { cardBrand: string | null; issuerCountry: string | null } | null,
): TransactionInput {
  const seed = onSessionLinkId
    ? `${state.subscriptionId}:cycle:${cycleNumber}:authentication:${onSessionLinkId}`
    : `${state.subscriptionId}:cycle:${cycleNumber}:try:${attempt}${retry ? `:retry:${retry}` : ''}`;
  return {
    transactionId: idFromSeed('tx', seed),
    orderId: idFromSeed('ord', seed),
    organizationId: state.organizationId,
    merchantId: state.merchantId,
    paymentMethod: 'credit_card',
    chargeType: 'payment',
    country: sub.country,
    amount,
    currency: state.currency,
    capture: true,
    walletType: null,
    installments: sub.preferredInstallments > 1 ? sub.preferredInstallments : null,
    riskScore: null,
    customerId: state.customerId,
    cardTokenId: null,
    paymentInstrumentId: state.paymentInstrumentId,
    checkoutSessionId: null,
    externalOrderId: null,
    metadata: {
      subscription_id: state.subscriptionId,
      cycle_number: cycleNumber,
      ...(onSessionLinkId ? { customer_authenticated_renewal: true } : {}),
    },
    cardBrand: instrument?.cardBrand ?? null,
    binCountry: instrument?.issuerCountry ?? null,
    subscriptionId: onSessionLinkId ? null : state.subscriptionId,
    order: {
      orderType: 'renewal',
      recurrence: 'subsequent',
      items: [
        {
          productId: product.id,
          offerId: offer.id,
          productName: product.name,
          offerName: offer.name,
          billingCycle: state.billingCycle,
          cycleLimit: state.cycleLimit,
          isFirstCharge: false,
          quantity: 1,
          unitAmount: amount,
          totalAmount: amount,
          currency: state.currency,
          installments: null,
        },
      ],
    },
  };
}

/**
 * Why a saved instrument may not be charged, or null when it may. Its status decides (revoked by the merchant or
 * the customer, expired by the vault); a card past its expiry date that is still `active` is left to the provider,
 * whose expired_card decline dunning treats as a card gone.
 */
export function instrumentRefusal(instrument: { status: string } | null): InstrumentRefusal | null {
  if (!instrument || instrument.status === 'revoked') return 'payment_instrument_revoked';
  if (instrument.status === 'expired') return 'expired_card';
  return null;
}
