/**
 * POST /transactions (and the hosted checkout's confirm) before the workflow runs: every body rule, the referenced
 * resources (read, never locked — the workflow's activities write them from their own connections while this
 * request's transaction is open), and the workflow input: amounts, routing attributes and the order's item
 * snapshots. Then the start itself: a checkout session takes one payment, so a charge of one claims it first.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Static } from '@sinclair/typebox';
import {
  CardTokenSchema,
  CheckoutItemSchema,
  CheckoutSessionSchema,
  CustomerSchema,
  OfferSchema,
  PaymentInstrumentSchema,
  ProductSchema,
} from '../../../db/entities';
import { firstCycleCharge } from '../../../workflows/lib/pricing';
import { isCardMethod, type TransactionInput, type OrderItemSnapshot } from '../../../workflows/lib/transaction-types';
import { errors } from '../../../domain/platform/errors';
import { checkLivePlan } from '../../../domain/subscriptions/subscriptions.first-transaction';
import { newId } from '../../../domain/platform/ids';
import {
  claimForPayment,
  payingTransactionOf,
  releaseUnopenedClaim,
} from '../../../db/repositories/checkout-sessions.repository';
import { hasActiveProfile } from '../../../db/repositories/routing.repository';
import { effectiveStatus, OPEN_STATUSES, refuseSetupMode } from '../checkout-sessions/checkout-status.rules';
import { runTransaction } from '../../temporal/transactions';
import type { AppDeps } from '../../deps';
import { isStillProcessing } from './transactions.service';
import { assertChargeable } from '../payment-instruments/instrument-status.rules';
import { effectiveTokenStatus } from '../tokens/tokens.service';
import type { CreateTransactionBody } from './transactions.schema';

type Body = Static<typeof CreateTransactionBody>;

function checkShape(body: Body): void {
  const sources = (['card_ciphertext_id', 'payment_instrument_id', 'checkout_session_id'] as const).filter(
    (f) => body[f] !== undefined,
  );
  // A checkout may also be paid with a saved card of its customer: checkout_session_id plus payment_instrument_id.
  const savedCardForCheckout =
    sources.length === 2 && body.checkout_session_id !== undefined && body.payment_instrument_id !== undefined;
  if (isCardMethod(body.payment_method)) {
    if (sources.length !== 1 && !savedCardForCheckout) {
      throw errors.validation({
        card_source: [
          'exactly one of card_ciphertext_id, payment_instrument_id or checkout_session_id is required for a card charge (or checkout_session_id with a payment_instrument_id of its customer)',
        ],
      });
    }
  } else {
    for (const field of ['card_ciphertext_id', 'payment_instrument_id'] as const) {
      if (body[field] !== undefined) throw errors.invalidValue(field, `is not allowed for ${body.payment_method}`);
    }
    if (body.charge_type === 'setup_verification')
      throw errors.invalidValue('charge_type', 'setup_verification is for card charges only');
    if (body.capture === false) throw errors.invalidValue('capture', `${body.payment_method} cannot be pre-authorized`);
  }
  if (body.payment_method === 'wallet' && body.wallet_type === undefined)
    throw errors.validation({ wallet_type: ['is required for wallet payments'] });
  if (body.payment_method !== 'wallet' && body.wallet_type !== undefined)
    throw errors.invalidValue('wallet_type', 'is only allowed for wallet payments');
  if (body.installments && body.installments.count > 1 && body.payment_method !== 'credit_card') {
    throw errors.invalidValue('installments', 'installments are only available for credit_card');
  }
  if (body.checkout_session_id === undefined) {
    const missing: Record<string, string[]> = {};
    if (body.amount === undefined) missing.amount = ['is required unless checkout_session_id is given'];
    if (body.currency === undefined) missing.currency = ['is required unless checkout_session_id is given'];
    if (Object.keys(missing).length) throw errors.validation(missing);
  }
  if (body.charge_type === 'setup_verification') {
    if (body.checkout_session_id !== undefined)
      throw errors.invalidValue('checkout_session_id', 'is not allowed for setup_verification');
    if (body.amount !== undefined && body.amount !== 0)
      throw errors.invalidValue('amount', 'must be 0 for setup_verification');
  } else if (body.amount === 0 && body.checkout_session_id === undefined) {
    throw errors.invalidValue('amount', 'must be positive for a payment');
  }
}

/**
 * Items of a checkout session snapshotted with first-charge pricing; the session's amount is their sum. `trial`:
 * an item's offer starts in a free trial (the order is a trial_setup).
 */
async function checkoutItems(
  em: EntityManager,
  merchantId: string,
  sessionId: string,
): Promise<{ snapshots: OrderItemSnapshot[]; trial: boolean }> {
  let trial = false;
  const items = await em.find(
    CheckoutItemSchema,
    { checkoutSessionId: sessionId, merchantId },
    { orderBy: { createdAt: 'asc', id: 'asc' } },
  );
  const snapshots: OrderItemSnapshot[] = [];
  for (const item of items) {
    const offer = await em.findOneOrFail(OfferSchema, { id: item.offerId });
    const product = await em.findOneOrFail(ProductSchema, { id: offer.productId });
    const first = firstCycleCharge({
      freeTrial: offer.freeTrial,
      trialDays: offer.trialDays,
      setupCharge: offer.setupCharge,
      amount: item.amount,
      firstChargeAmount: item.firstChargeAmount,
    });
    trial ||= first.initialStatus === 'trialing';
    snapshots.push({
      productId: product.id,
      offerId: offer.id,
      productName: product.name,
      offerName: offer.name,
      billingCycle: offer.billingCycle === 'none' ? null : offer.billingCycle,
      cycleLimit: offer.cycleLimit,
      isFirstCharge: first.kind !== 'standard',
      quantity: item.quantity,
      unitAmount: first.chargeNow,
      totalAmount: first.chargeNow * item.quantity,
      currency: item.currency,
      installments: item.installments,
    });
  }
  return { snapshots, trial };
}

const paymentInProgress = (checkoutSessionId: string) =>
  errors.conflict(
    'CHECKOUT_SESSION_PAYMENT_IN_PROGRESS',
    'Another payment of this checkout session is under way; read its outcome before paying again',
    { checkout_session_id: checkoutSessionId },
  );

const notPayable = (status: string) =>
  errors.businessRule('INVALID_STATE_TRANSITION', `A checkout session that is ${status} cannot be paid`, { status });

/** The workflow input for a valid request; 400/409/422 for anything the rules refuse. */
export async function buildTransactionInput(
  em: EntityManager,
  organizationId: string,
  merchantId: string,
  body: Body,
  transactionId: string = newId('tx'),
  /** A hosted-checkout confirm: the card is the newest token this browser session minted, never another session's. */
  browserSessionId?: string,
): Promise<TransactionInput> {
  checkShape(body);
  const now = new Date();
  let customerId = body.customer_id ?? null;
  if (customerId && !(await em.findOne(CustomerSchema, { id: customerId, merchantId }))) {
    throw errors.invalidValue('customer_id', 'no such customer for this merchant');
  }
  let cardTokenId: string | null = null;
  let cardBrand: string | null = null;
  let binCountry: string | null = null;
  if (body.card_ciphertext_id) {
    const token = await em.findOne(CardTokenSchema, { id: body.card_ciphertext_id, merchantId });
    if (!token) throw errors.invalidValue('card_ciphertext_id', 'no such card token for this merchant');
    const status = effectiveTokenStatus(token, now);
    // A token claimed or spent by this very transaction is the same request retried (its transaction id derives
    // from the Idempotency-Key) racing its own first try's workflow: it joins that charge below, never a second one.
    const usedByOther = token.usedBy !== null && token.usedBy !== transactionId;
    if (usedByOther || (status === 'used' && token.usedBy !== transactionId)) {
      throw errors.conflict('TOKEN_ALREADY_USED', 'This card token has already been used; tokenize the card again', {
        card_ciphertext_id: token.id,
      });
    }
    if (status === 'expired')
      throw errors.businessRule('TOKEN_EXPIRED', 'This card token has expired; tokenize the card again', {
        card_ciphertext_id: token.id,
      });
    cardTokenId = token.id;
    cardBrand = token.cardBrand;
  }
  let instrumentCustomerId: string | null = null;
  if (body.payment_instrument_id) {
    const instrument = await em.findOne(PaymentInstrumentSchema, { id: body.payment_instrument_id, merchantId });
    if (!instrument) throw errors.invalidValue('payment_instrument_id', 'no such payment instrument for this merchant');
    if (customerId && instrument.customerId !== customerId)
      throw errors.invalidValue('payment_instrument_id', "is not the customer's instrument");
    assertChargeable(instrument, now);
    customerId = instrument.customerId;
    instrumentCustomerId = instrument.customerId;
    cardBrand = instrument.cardBrand;
    binCountry = instrument.issuerCountry;
  }
  let amount = body.amount ?? 0;
  let currency = body.currency?.toUpperCase() ?? '';
  let items: OrderItemSnapshot[] = [];
  let recurrence: 'none' | 'initial' = 'none';
  let trial = false;
  if (body.checkout_session_id) {
    const session = await em.findOne(CheckoutSessionSchema, { id: body.checkout_session_id, merchantId });
    if (!session) throw errors.invalidValue('checkout_session_id', 'no such checkout session for this merchant');
    refuseSetupMode(session);
    const status = effectiveStatus(session, now);
    // payment_pending held by this very transaction: the same request retried before its charge opened.
    if (status === 'payment_pending' && (await payingTransactionOf(em, session.id)) !== transactionId)
      throw paymentInProgress(session.id);
    if (!OPEN_STATUSES.includes(status) && status !== 'payment_pending') throw notPayable(status);
    ({ snapshots: items, trial } = await checkoutItems(em, merchantId, session.id));
    if (items.length === 0) throw errors.invalidValue('checkout_session_id', 'the checkout session has no items');
    // The session decides what is charged; amount and currency sent with it are ignored (Document 3).
    amount = items.reduce((sum, item) => sum + item.totalAmount, 0);
    currency = items[0].currency;
    recurrence = items.some((item) => item.billingCycle !== null) ? 'initial' : 'none';
    // One first charge starts one subscription: a second recurring line would be charged now and never renewed.
    if (items.filter((item) => item.billingCycle !== null).length > 1) {
      throw errors.businessRule(
        'CHECKOUT_MULTIPLE_RECURRING_ITEMS',
        'A checkout session can hold at most one recurring offer (one subscription per payment); sell the others in separate checkout sessions',
        { recurring_offer_ids: items.filter((item) => item.billingCycle !== null).map((item) => item.offerId) },
      );
    }
    // Renewals charge the card saved by the first payment; a pix or boleto first payment would leave none.
    if (recurrence === 'initial' && !isCardMethod(body.payment_method)) {
      throw errors.invalidValue(
        'payment_method',
        'a checkout with a recurring offer is paid by card, so that renewals can charge the saved card',
      );
    }
    // A saved card pays only its own customer's checkout: the session must name that customer.
    if (instrumentCustomerId !== null && session.customerId !== instrumentCustomerId) {
      throw errors.invalidValue(
        'payment_instrument_id',
        session.customerId
          ? "is not a saved card of the checkout session's customer"
          : 'a saved card can pay only a checkout session created for its customer (customer_id)',
      );
    }
    if (customerId && session.customerId && session.customerId !== customerId)
      throw errors.invalidValue('customer_id', "differs from the checkout session's customer");
    customerId ??= session.customerId;
    // One live subscription per plan and customer: refused before anything is charged (409, pointing to the live one).
    if (customerId) {
      for (const item of items.filter((i) => i.billingCycle !== null))
        await checkLivePlan(em, merchantId, customerId, item.productId);
    }
    if (isCardMethod(body.payment_method) && !body.payment_instrument_id) {
      // The card of a hosted checkout is the newest usable token minted for the session; a browser's confirm takes
      // only its own browser session's, so another holder of the checkout link cannot slip a card into this payment.
      const token = await em.findOne(
        CardTokenSchema,
        {
          merchantId,
          checkoutSessionId: session.id,
          ...(browserSessionId === undefined ? {} : { browserSessionId }),
          status: 'active',
          usedBy: null,
          expiresAt: { $gt: now },
        },
        { orderBy: { createdAt: 'desc' } },
      );
      if (!token) throw errors.invalidValue('checkout_session_id', 'the checkout session has no usable card token');
      cardTokenId = token.id;
      cardBrand = token.cardBrand;
    }
  }
  await assertRoutingConfigured(em, merchantId, body.payment_method);
  // Nothing charged up front for a card (a free trial, a 0 first cycle): the card is validated at zero amount.
  const chargeType =
    amount === 0 && body.checkout_session_id && isCardMethod(body.payment_method)
      ? 'setup_verification'
      : body.charge_type;
  return {
    transactionId,
    orderId: newId('ord'),
    organizationId,
    merchantId,
    paymentMethod: body.payment_method,
    chargeType,
    country: body.country.toUpperCase(),
    amount,
    currency,
    capture: body.capture ?? true,
    walletType: body.wallet_type ?? null,
    installments: body.installments?.count ?? null,
    riskScore: body.risk_score ?? null,
    customerId,
    cardTokenId,
    paymentInstrumentId: body.payment_instrument_id ?? null,
    checkoutSessionId: body.checkout_session_id ?? null,
    externalOrderId: body.external_order_id ?? null,
    metadata: body.metadata ?? null,
    ...(body.return_url ? { returnUrl: body.return_url } : {}),
    cardBrand,
    binCountry,
    // Document 3's order types: a free trial's card check is trial_setup, any other card check card_setup.
    order: {
      orderType: trial
        ? 'trial_setup'
        : chargeType === 'setup_verification'
          ? 'card_setup'
          : body.checkout_session_id
            ? 'checkout'
            : 'api',
      recurrence,
      items,
    },
  };
}

/**
 * A charge no active routing profile serves is the merchant's configuration, not a decline: 422 before anything is
 * written, so no transaction or order exists and no approval rate counts it. (A profile whose connectors cannot take
 * this charge, or whose circuits are open, still fails the charge as no_route: that depends on the charge.)
 */
async function assertRoutingConfigured(em: EntityManager, merchantId: string, paymentMethod: string): Promise<void> {
  if (await hasActiveProfile(em, merchantId, paymentMethod)) return;
  throw errors.businessRule(
    'ROUTING_NOT_CONFIGURED',
    `No active routing profile routes ${paymentMethod} payments, so no connector can take this charge. Create one ` +
      `for ${paymentMethod} (or "*") with POST /merchants/${merchantId}/routing-profiles and activate it ` +
      '(PATCH is_active: true), or turn one on under Routing in the Dashboard',
    { payment_method: paymentMethod },
  );
}

/**
 * A checkout session takes one payment: the charge of one claims it (payment_pending, naming the transaction)
 * before its workflow starts, so no second payment reaches a provider. 409 CHECKOUT_SESSION_PAYMENT_IN_PROGRESS when
 * another payment holds it, 422 when it stopped being payable since buildTransactionInput read it. The same transaction
 * retried finds its own claim.
 */
export async function claimCheckout(em: EntityManager, input: TransactionInput): Promise<void> {
  const sessionId = input.checkoutSessionId;
  if (!sessionId || (await claimForPayment(em, sessionId, input.transactionId))) return;
  const session = await em.findOneOrFail(CheckoutSessionSchema, { id: sessionId }, { refresh: true });
  const status = effectiveStatus(session, new Date());
  throw status === 'payment_pending' ? paymentInProgress(sessionId) : notPayable(status);
}

/**
 * Runs a charge whose checkout (if any) claimCheckout claimed. A workflow that could not be started gives the
 * checkout back (unless its transaction was opened after all); one that outlived the wait keeps it, since it runs
 * when a worker takes it, and gives it back itself if it takes no money.
 */
export async function runClaimedTransaction(
  em: EntityManager,
  temporal: AppDeps['temporal'],
  input: TransactionInput,
  waitMs: number,
): Promise<void> {
  try {
    await runTransaction(temporal, input, waitMs);
  } catch (error) {
    if (input.checkoutSessionId && !isStillProcessing(error, 'CHARGE_STILL_PROCESSING'))
      await releaseUnopenedClaim(em, input.checkoutSessionId, input.transactionId);
    throw error;
  }
}
