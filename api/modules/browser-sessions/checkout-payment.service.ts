/**
 * POST /sessions/:sessionId/checkout/confirm: the buyer pays the checkout the browser session was opened for.
 * It is the server-side charge (`POST /transactions` with `checkout_session_id`) — the same buildTransactionInput and
 * the same charge-cascade workflow (runTransaction) — with everything that decides the charge taken from the session:
 * amount, currency, items, customer and installments from the checkout, the card from the newest token this
 * browser session minted for it (never another session's card), the country from the customer or the merchant.
 * The browser only picks the payment method.
 *
 * Idempotent per checkout session: the transaction id derives from the checkout and the number of its payments
 * that already ended unsuccessfully, so a double click or a retry after a lost answer names the same transaction
 * (and joins the same workflow), while paying again after a decline names a new one.
 *
 * A recurring offer's payment starts its subscription inside that same charge workflow (a free trial's card is
 * validated at zero amount and the subscription starts trialing): nothing here is specific to subscriptions but
 * the view of the one that was started.
 *
 * A card the issuer challenges (3-D Secure) answers `pending` with nextAction; the page's returnUrl is the charge's
 * return_url, where the challenge brings the buyer back.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  CardTokenSchema,
  CheckoutItemSchema,
  CheckoutSessionSchema,
  CustomerSchema,
  MerchantSchema,
  SubscriptionSchema,
  TransactionAttemptSchema,
  TransactionSchema,
  type CheckoutSession,
  type Transaction,
} from '../../../db/entities';
import { errors } from '../../../domain/platform/errors';
import { qrDataUrl } from '../../lib/qr-code';
import { idFromSeed } from '../../../domain/platform/ids';
import {
  CHECKOUT_FAILURE_WINDOW_SECONDS,
  MAX_FAILED_PAYMENTS_PER_CHECKOUT,
  refuseAfterRepeatedDeclines,
  reserveDecline,
} from '../../http/browser-limits';
import { noticeVerificationsPaused } from './verification-breaker.service';
import type { AppDeps } from '../../deps';
import type { ApiKeyAuth } from '../../http/auth';
import { awaitTransaction } from '../../temporal/transactions';
import {
  buildTransactionInput,
  claimCheckout,
  runClaimedTransaction,
} from '../transactions/transaction-request.service';
import { UNRESOLVED_PROVIDER_CALL, type TransactionInput } from '../../../workflows/lib/transaction-types';
import { CHARGE_IN_DOUBT } from '../../../domain/transactions/transactions.in-doubt';
import { effectiveStatus, refuseSetupMode } from '../checkout-sessions/checkout-status.rules';
import { requireBrowserSession } from './browser-sessions.service';
import type { CHECKOUT_PAYMENT_METHODS } from './browser-sessions.schema';
import { UNPAID_ENDS } from '../../../domain/transactions/transactions.state-table';
import {
  AUTHENTICATION_ABANDONED,
  AUTHENTICATION_FAILED,
  nextActionOf,
  type NextAction,
} from '../../../workflows/lib/three-ds';
import { browserReturnUrlProblem } from '../transactions/return-url.rules';

/** in_doubt: failed with a provider call whose outcome is still unknown (the reconciler settles it). */
export type CheckoutPaymentOutcome = 'succeeded' | 'pending' | 'declined' | 'failed' | 'in_doubt' | 'expired';

export interface CheckoutPayment {
  transactionId: string;
  orderId: string | null;
  outcome: CheckoutPaymentOutcome;
  declineType: 'soft_decline' | 'hard_decline' | null;
  message: string | null;
  paymentMethod: string;
  amount: number;
  currency: string;
  paymentInstructions: Record<string, unknown> | null;
  qrCodeImage: string | null;
  checkoutStatus: string;
  /** Where the buyer authenticates a challenged card payment, until when; null otherwise. */
  nextAction: { type: 'redirect_to_url'; url: string; expiresAt: string } | null;
  /** authentication_failed / authentication_abandoned when the buyer's authentication failed the payment. */
  failureCode: AuthenticationFailure | null;
  /** The subscription a paid recurring offer started (for the receipt's next billing date); null otherwise. */
  subscription: CheckoutSubscription | null;
}

const AUTHENTICATION_FAILURES = [AUTHENTICATION_FAILED, AUTHENTICATION_ABANDONED] as const;
type AuthenticationFailure = (typeof AUTHENTICATION_FAILURES)[number];

export interface CheckoutSubscription {
  id: string;
  status: string;
  trialEnd: string | null;
  nextBillingAt: string | null;
}

async function subscriptionOf(em: EntityManager, tx: Transaction): Promise<CheckoutSubscription | null> {
  if (!tx.subscriptionId) return null;
  const sub = await em.findOne(
    SubscriptionSchema,
    { id: tx.subscriptionId, merchantId: tx.merchantId },
    { refresh: true },
  );
  if (!sub) return null;
  return {
    id: sub.id,
    status: sub.status,
    trialEnd: sub.trialEnd?.toISOString() ?? null,
    nextBillingAt: sub.nextBillingAt?.toISOString() ?? null,
  };
}

/** The buyer reads these; provider codes and messages stay in the merchant's Dashboard and API. */
const MESSAGES = {
  soft_decline: 'Your bank declined this payment. Check the card details, or try another card.',
  hard_decline: 'This card cannot be used for this payment. Please use another card.',
  failed: 'The payment could not be completed and nothing was charged. Please try again in a moment.',
  in_doubt:
    'We could not get an answer from the bank about this payment and are checking it now. Please do not pay again yet: any amount taken without completing your order is given back automatically.',
  expired: 'The payment was not completed in time. You can pay again.',
  [AUTHENTICATION_FAILED]:
    'Your bank could not verify that it is you, so nothing was charged. Please try again, or use another card.',
  [AUTHENTICATION_ABANDONED]:
    'The confirmation with your bank was not completed in time, so nothing was charged. You can pay again.',
};

/** The pix code as an image, drawn here so the page needs neither a QR library nor the provider's QR page. */
function qrCodeImage(instructions: Record<string, unknown> | null): string | null {
  const text = instructions?.qr_code_text;
  if (typeof text !== 'string' || text.length === 0) return null;
  try {
    return qrDataUrl(text);
  } catch {
    return null; // longer than any QR code holds: the copy-paste code is still shown
  }
}

export function checkoutTransactionId(checkoutId: string, unsuccessfulPayments: number): string {
  return idFromSeed('tx', `checkout-payment:${checkoutId}:${unsuccessfulPayments}`);
}

async function currentTransactionId(em: EntityManager, checkout: CheckoutSession): Promise<string> {
  const unsuccessful = await em.count(TransactionSchema, {
    merchantId: checkout.merchantId,
    checkoutSessionId: checkout.id,
    // Payments that ended without taking the money: the checkout is payable again after them.
    status: { $in: [...UNPAID_ENDS] },
  });
  return checkoutTransactionId(checkout.id, unsuccessful);
}

/** The buyer's view of one payment of the checkout (the latest one on GET /sessions/checkout). */
export async function presentCheckoutPayment(
  em: EntityManager,
  tx: Transaction,
  checkout: CheckoutSession,
  now: Date,
): Promise<CheckoutPayment> {
  let outcome: CheckoutPaymentOutcome;
  let declineType: CheckoutPayment['declineType'] = null;
  let failureCode: AuthenticationFailure | null = null;
  const attempts = () =>
    em.find(TransactionAttemptSchema, { transactionId: tx.id }, { refresh: true, orderBy: { attemptNumber: 'asc' } });
  let nextAction: NextAction | null = null;
  if (tx.status === 'pending') {
    outcome = 'pending';
    nextAction = nextActionOf((await attempts()).at(-1)?.threeDs);
  } else if (tx.status === 'expired' || tx.status === 'canceled') outcome = 'expired';
  else if (tx.status === 'failed') {
    const tried = await attempts();
    // A call the provider may have charged without answering outweighs any decline before it: nobody knows yet.
    const inDoubt = tried.some((a) => a.errorCode === UNRESOLVED_PROVIDER_CALL || a.errorCode === CHARGE_IN_DOUBT);
    const declined = tried.map((a) => a.outcome).find((o) => o === 'hard_decline' || o === 'soft_decline');
    // The buyer's own authentication is theirs to hear about; a decline's reason stays with the merchant.
    failureCode = inDoubt ? null : (AUTHENTICATION_FAILURES.find((code) => code === tx.failureCode) ?? null);
    declineType = inDoubt || failureCode ? null : (declined ?? null);
    outcome = inDoubt ? 'in_doubt' : declineType ? 'declined' : 'failed';
  } else outcome = 'succeeded';
  const reason =
    failureCode ??
    declineType ??
    (outcome === 'failed' || outcome === 'in_doubt' || outcome === 'expired' ? outcome : null);
  return {
    transactionId: tx.id,
    orderId: tx.orderId,
    outcome,
    declineType,
    message: reason ? MESSAGES[reason] : null,
    paymentMethod: tx.paymentMethod,
    amount: tx.amount,
    currency: tx.currency,
    paymentInstructions: outcome === 'pending' ? tx.paymentInstructions : null,
    qrCodeImage: outcome === 'pending' ? qrCodeImage(tx.paymentInstructions) : null,
    checkoutStatus: effectiveStatus(checkout, now),
    nextAction: nextAction && { type: nextAction.type, url: nextAction.url, expiresAt: nextAction.expires_at },
    failureCode,
    subscription: outcome === 'succeeded' ? await subscriptionOf(em, tx) : null,
  };
}

export async function latestCheckoutPayment(
  em: EntityManager,
  checkout: CheckoutSession,
  now: Date,
): Promise<CheckoutPayment | null> {
  const tx = await em.findOne(
    TransactionSchema,
    { merchantId: checkout.merchantId, checkoutSessionId: checkout.id },
    { orderBy: { createdAt: 'desc', id: 'desc' } },
  );
  return tx ? presentCheckoutPayment(em, tx, checkout, now) : null;
}

/** 429 once the checkout has had too many unsuccessful payments in the window, whichever browser tried them. */
async function refuseAfterFailedPayments(em: EntityManager, checkout: CheckoutSession, now: Date): Promise<void> {
  const since = new Date(now.getTime() - CHECKOUT_FAILURE_WINDOW_SECONDS * 1000);
  const failed = await em.find(
    TransactionSchema,
    { merchantId: checkout.merchantId, checkoutSessionId: checkout.id, status: 'failed', createdAt: { $gte: since } },
    { orderBy: { createdAt: 'asc' }, limit: MAX_FAILED_PAYMENTS_PER_CHECKOUT },
  );
  if (failed.length < MAX_FAILED_PAYMENTS_PER_CHECKOUT) return;
  const resetAt = failed[0].createdAt.getTime() + CHECKOUT_FAILURE_WINDOW_SECONDS * 1000;
  throw errors.rateLimited(
    Math.max(1, Math.ceil((resetAt - now.getTime()) / 1000)),
    'Too many unsuccessful payments for this checkout; try again later',
  );
}

async function chargeCountry(em: EntityManager, checkout: CheckoutSession): Promise<string> {
  const customer = checkout.customerId ? await em.findOne(CustomerSchema, { id: checkout.customerId }) : null;
  const merchant = await em.findOneOrFail(MerchantSchema, { id: checkout.merchantId });
  const country = customer?.billingAddress?.country ?? merchant.address?.country;
  if (!country)
    throw errors.businessRule(
      'COUNTRY_REQUIRED',
      "Neither the checkout's customer nor the merchant has an address country to charge in",
    );
  return country;
}

export async function confirmCheckout(
  em: EntityManager,
  deps: AppDeps,
  auth: ApiKeyAuth,
  sessionId: string,
  paymentMethod: (typeof CHECKOUT_PAYMENT_METHODS)[number],
  now: Date,
  clientIp: string,
  { paymentInstrumentId, returnUrl }: { paymentInstrumentId?: string; returnUrl?: string } = {},
): Promise<CheckoutPayment> {
  const session = await requireBrowserSession(em, auth, sessionId, now);
  if (!session.checkoutSessionId) throw errors.notFound('This browser session was not created for a checkout session');
  const checkout = await em.findOneOrFail(CheckoutSessionSchema, {
    id: session.checkoutSessionId,
    merchantId: session.merchantId,
  });
  const { merchantId } = session;
  refuseSetupMode(checkout);
  // Saved cards are offered only on a checkout created for a customer id (browser-checkout.service.ts): anyone can
  // type someone else's e-mail into a guest checkout, so an e-mail-bound checkout never pays with a saved card.
  if (paymentInstrumentId && !(checkout.customerId && checkout.customerBoundBy === 'id')) {
    throw errors.invalidValue('paymentInstrumentId', 'this checkout has no saved cards to pay with');
  }
  if (returnUrl !== undefined) await assertReturnUrl(em, deps, merchantId, paymentMethod, returnUrl);
  const transactionId = await currentTransactionId(em, checkout);
  const started = () => em.findOne(TransactionSchema, { id: transactionId, merchantId }, { refresh: true });
  if (await started()) {
    // A double click or a retry after a lost answer: the same payment, never a second charge.
    await awaitTransaction(deps.temporal.client, transactionId, deps.config.workflowWaitMs);
  } else {
    const client = { keyId: auth.keyId, ip: clientIp, sessionId: session.id };
    await refuseAfterRepeatedDeclines(em, client, now.getTime());
    await refuseAfterFailedPayments(em, checkout, now);
    const items = await em.find(CheckoutItemSchema, { checkoutSessionId: checkout.id });
    const installments = Math.max(1, ...items.map((item) => item.installments));
    const country = await chargeCountry(em, checkout);
    let input: TransactionInput;
    try {
      input = await buildTransactionInput(
        em,
        session.organizationId,
        merchantId,
        {
          payment_method: paymentMethod,
          charge_type: 'payment',
          country,
          checkout_session_id: checkout.id,
          ...(paymentInstrumentId ? { payment_instrument_id: paymentInstrumentId } : {}),
          ...(returnUrl ? { return_url: returnUrl } : {}),
          ...(installments > 1 && paymentMethod === 'credit_card' ? { installments: { count: installments } } : {}),
        },
        transactionId,
        session.id,
      );
    } catch (error) {
      // A concurrent confirm (a double click) opened this very charge since the read above, so the checkout is no
      // longer open: join that charge instead of refusing. Any other refusal stands.
      if (!(await started())) throw error;
      await awaitTransaction(deps.temporal.client, transactionId, deps.config.workflowWaitMs);
      return readPayment(em, transactionId, checkout.id, now);
    }
    // Counted as a decline before the provider sees the card; given back unless it is declined. Only a new card
    // (not a saved card, pix or boleto) is what card testing tries, so only it counts for, and is paused by, the
    // key's breaker.
    const card = input.cardTokenId ? await em.findOne(CardTokenSchema, { id: input.cardTokenId }) : null;
    const source = { ...client, checkoutId: checkout.id, cardFingerprint: card?.fingerprint, newCard: card !== null };
    const reservation = await reserveDecline(em, source, (windowEndsAt) =>
      noticeVerificationsPaused(em, session, auth.keyId, windowEndsAt),
    );
    try {
      // A checkout session takes one payment: a server-side payment under way refuses this one (409).
      await claimCheckout(em, input);
    } catch (error) {
      await reservation.cancel();
      throw error;
    }
    await runClaimedTransaction(em, deps.temporal, input, deps.config.workflowWaitMs);
    const payment = await readPayment(em, transactionId, checkout.id, now);
    if (payment.outcome !== 'declined') await reservation.release();
    return payment;
  }
  return readPayment(em, transactionId, checkout.id, now);
}

async function assertReturnUrl(
  em: EntityManager,
  deps: AppDeps,
  merchantId: string,
  paymentMethod: string,
  returnUrl: string,
): Promise<void> {
  const { website } = await em.findOneOrFail(MerchantSchema, { id: merchantId });
  const allowed = { hostedOrigin: deps.config.publicBaseUrl, website };
  const problem = browserReturnUrlProblem(returnUrl, paymentMethod, deps.config.env, allowed);
  if (problem) throw errors.invalidValue('returnUrl', problem);
}

async function readPayment(em: EntityManager, transactionId: string, checkoutId: string, now: Date) {
  const tx = await em.findOneOrFail(TransactionSchema, { id: transactionId }, { refresh: true });
  const checkout = await em.findOneOrFail(CheckoutSessionSchema, { id: checkoutId }, { refresh: true });
  return presentCheckoutPayment(em, tx, checkout, now);
}
