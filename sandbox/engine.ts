/**
 * Provider-neutral payment behaviour: decide the scenario, create the payment, capture/void/refund it, settle or
 * expire async payments, open disputes, and emit the events that become signed webhooks. Provider modules only
 * translate their own request and response shapes around these functions.
 */
import { amountScenario, type CardFacts, type DeclineReason, type Scenario } from './cards';
import { instructionsFor } from './instructions';
import {
  numericId,
  type EventType,
  type Method,
  type Payment,
  type PaymentThreeDs,
  type Refund,
  type SandboxEvent,
  type SandboxProvider,
  type Store,
} from './store';

export interface SandboxContext {
  store: Store;
  slowMs: number;
  webhookDelayMs: number;
  /** The sandbox's own base URL (for qr-code and boleto links). */
  baseUrl(): string;
  emit(event: Omit<SandboxEvent, 'id' | 'createdAt' | 'deliveries' | 'endpoints'>): SandboxEvent;
  /** setTimeout tracked so stop() cancels it. */
  later(ms: number, fn: () => void): void;
  sleep(ms: number): Promise<void>;
}

export interface PaymentInput {
  id: string;
  provider: SandboxProvider;
  account: string;
  reference: string | null;
  amount: number;
  currency: string;
  method: Method;
  card: CardFacts | null;
  capture: boolean;
  /**
   * Set by a provider that runs 3-D Secure: whether the merchant asked for it, where the buyer returns after a
   * challenge, and whether the charge is merchant-initiated (off-session: nobody is there to be challenged).
   */
  threeDs?: { request: boolean; returnUrl: string | null; failureUrl?: string | null; offSession: boolean };
}

/**
 * A forced override wins; then the card number (a card that verifies approves its zero-amount verification); then,
 * for other methods, the amount's last two digits.
 */
export function decide(
  ctx: SandboxContext,
  input: Pick<PaymentInput, 'provider' | 'account' | 'reference' | 'amount' | 'card'>,
): Scenario {
  const forced = ctx.store.takeOverride(input.provider, input.account, input.reference, 'authorize');
  if (forced) return forced;
  if (input.card?.verifies && input.amount === 0) return 'approve';
  return input.card ? input.card.scenario : amountScenario(input.amount);
}

/** Creates the payment for a scenario that reached the provider (not timeout/processing_error). */
export function createPayment(ctx: SandboxContext, input: PaymentInput, scenario: Scenario): Payment {
  const approves = [
    'approve',
    'slow',
    'approved_no_answer',
    'approved_server_error',
    'review',
    'three_ds_frictionless',
  ].includes(scenario);
  const authentication = authenticationOf(input, scenario, approves, `${ctx.baseUrl()}/_sandbox/challenge/${input.id}`);
  const declined =
    authentication.challenge || approves ? null : (authentication.decline ?? (scenario as DeclineReason));
  const asynchronous = input.method === 'pix' || input.method === 'boleto' || scenario === 'review';
  let state: Payment['state'];
  if (authentication.challenge) state = 'requires_action';
  else if (declined) state = 'declined';
  else if (asynchronous) state = 'pending';
  else if (input.amount === 0) state = 'verified';
  else state = input.capture ? 'captured' : 'authorized';
  const instructionsUrl = `${ctx.baseUrl()}/_sandbox/instructions/${input.id}`;
  const payment: Payment = {
    id: input.id,
    provider: input.provider,
    account: input.account,
    reference: input.reference,
    amount: input.amount,
    currency: input.currency,
    method: input.method,
    cardBrand: input.card?.brand ?? null,
    cardLast4: input.card?.last4 ?? null,
    state,
    capture: input.capture,
    declineReason: declined,
    capturedAmount: state === 'captured' ? input.amount : 0,
    refundedAmount: 0,
    networkTransactionId: input.method === 'card' && !declined ? numericId(15) : null,
    instructions:
      !declined && (input.method === 'pix' || input.method === 'boleto')
        ? instructionsFor(input.method, input.amount, instructionsUrl)
        : null,
    threeDs: authentication.threeDs,
    createdAt: new Date().toISOString(),
  };
  ctx.store.payments.set(payment.id, payment);
  return payment;
}

/**
 * How the issuer treats a card payment's 3-D Secure. The challenge cards are challenged where the provider runs it
 * and the buyer is there; elsewhere (a provider without 3-D Secure, a merchant-initiated charge) they are declined
 * authentication_required. A card the merchant asked to authenticate that is not challenged passes frictionless.
 */
function authenticationOf(
  input: PaymentInput,
  scenario: Scenario,
  approves: boolean,
  challengeUrl: string,
): { challenge: boolean; decline: DeclineReason | null; threeDs: PaymentThreeDs | null } {
  const challengeCard = scenario === 'three_ds_challenge' || scenario === 'three_ds_challenge_decline';
  const three = input.threeDs;
  if (challengeCard && (!three || three.offSession))
    return { challenge: false, decline: 'authentication_required', threeDs: null };
  if (challengeCard) {
    const declineAfter = scenario === 'three_ds_challenge_decline';
    return {
      challenge: true,
      decline: null,
      threeDs: {
        flow: 'challenge',
        result: null,
        returnUrl: three!.returnUrl,
        challengeUrl,
        failureUrl: three!.failureUrl ?? null,
        declineAfter,
      },
    };
  }
  const frictionless = approves && three?.request === true && !three.offSession;
  return {
    challenge: false,
    decline: null,
    threeDs: frictionless
      ? { flow: 'frictionless', result: 'authenticated', returnUrl: null, challengeUrl: null, declineAfter: false }
      : null,
  };
}

/**
 * The buyer finished the challenge page: authenticated, the issuer decides (the decline-after card declines
 * do_not_honor); failed, the payment is declined authentication_failed. The provider notifies the outcome. A
 * payment no longer awaiting its challenge (completed, or canceled at its deadline) is left as it is.
 */
export function completeChallenge(
  ctx: SandboxContext,
  payment: Payment,
  outcome: 'authenticated' | 'failed',
): EngineResult<Payment> {
  if (payment.state !== 'requires_action' || !payment.threeDs) return { ok: false, error: 'invalid_state' };
  payment.threeDs.result = outcome;
  if (outcome === 'failed' || payment.threeDs.declineAfter) {
    payment.state = 'declined';
    payment.declineReason = outcome === 'failed' ? 'authentication_failed' : 'do_not_honor';
  } else {
    payment.state = payment.capture ? 'captured' : 'authorized';
    payment.capturedAmount = payment.state === 'captured' ? payment.amount : 0;
    payment.networkTransactionId = numericId(15);
  }
  emitFor(ctx, payment, payment.state === 'declined' ? 'payment.failed' : 'payment.succeeded', null);
  return { ok: true, value: payment };
}

export type EngineError = 'invalid_state' | 'amount_too_large' | 'unsupported';
export type EngineResult<T> = { ok: true; value: T } | { ok: false; error: EngineError };

export function capture(payment: Payment, amount: number | null): EngineResult<Payment> {
  if (payment.state !== 'authorized') return { ok: false, error: 'invalid_state' };
  const value = amount ?? payment.amount;
  if (value <= 0 || value > payment.amount) return { ok: false, error: 'amount_too_large' };
  payment.state = 'captured';
  payment.capturedAmount = value;
  return { ok: true, value: payment };
}

export function voidPayment(payment: Payment): EngineResult<Payment> {
  if (!['authorized', 'pending', 'requires_action'].includes(payment.state))
    return { ok: false, error: 'invalid_state' };
  payment.state = 'voided';
  return { ok: true, value: payment };
}

/** Refund amounts ending in 61 fail (immediately for synchronous providers, by webhook for asynchronous ones). */
export const FAILING_REFUND_CENTS = 61;

export function refund(
  ctx: SandboxContext,
  payment: Payment,
  input: { id: string; amount: number | null; reference: string | null; asynchronous: boolean },
): EngineResult<Refund> {
  if (payment.state !== 'captured') return { ok: false, error: 'invalid_state' };
  const amount = input.amount ?? payment.capturedAmount - payment.refundedAmount;
  if (amount <= 0 || amount > payment.capturedAmount - payment.refundedAmount)
    return { ok: false, error: 'amount_too_large' };
  const fails = amount % 100 === FAILING_REFUND_CENTS;
  const record: Refund = {
    id: input.id,
    paymentId: payment.id,
    provider: payment.provider,
    account: payment.account,
    amount,
    currency: payment.currency,
    reference: input.reference ?? payment.reference,
    createdAt: new Date().toISOString(),
    state: input.asynchronous ? 'pending' : fails ? 'failed' : 'succeeded',
  };
  if (record.state !== 'failed') payment.refundedAmount += amount;
  ctx.store.refunds.set(record.id, record);
  if (input.asynchronous)
    ctx.later(ctx.webhookDelayMs, () => record.state === 'pending' && completeRefund(ctx, record, !fails));
  return { ok: true, value: record };
}

/** Moves a refund to its final state (control endpoint or the async timer) and emits its webhook. */
export function completeRefund(ctx: SandboxContext, record: Refund, succeeded: boolean): SandboxEvent {
  const payment = ctx.store.payments.get(record.paymentId);
  const wasCounted = record.state !== 'failed';
  record.state = succeeded ? 'succeeded' : 'failed';
  if (payment && wasCounted && !succeeded) payment.refundedAmount -= record.amount;
  if (payment && !wasCounted && succeeded) payment.refundedAmount += record.amount;
  return ctx.emit({
    provider: record.provider,
    account: record.account,
    type: succeeded ? 'refund.succeeded' : 'refund.failed',
    paymentId: record.paymentId,
    refundId: record.id,
    disputeStatus: null,
    reference: record.reference,
    amount: record.amount,
    currency: record.currency,
  });
}

/**
 * settle: a pending pix/boleto is paid (by default its own amount; `paidAmount` simulates a payer or provider
 * reporting another one), or a card held for review is approved — captured, unless it was sent for manual capture:
 * then it is authorized, for a later capture or void, as Stripe and Mercado Pago keep it. expire: it lapses unpaid.
 * fail: the provider rejects it late.
 */
export function finishPending(
  ctx: SandboxContext,
  payment: Payment,
  how: 'settle' | 'expire' | 'fail',
  paidAmount: number = payment.amount,
): EngineResult<SandboxEvent> {
  if (payment.state !== 'pending') return { ok: false, error: 'invalid_state' };
  const type: EventType =
    how === 'settle' ? 'payment.succeeded' : how === 'expire' ? 'payment.expired' : 'payment.failed';
  const settled = payment.capture ? 'captured' : 'authorized';
  payment.state = how === 'settle' ? settled : how === 'expire' ? 'expired' : 'declined';
  if (payment.state === 'captured') payment.capturedAmount = paidAmount;
  if (how === 'fail') payment.declineReason = 'do_not_honor';
  return { ok: true, value: emitFor(ctx, payment, type, null, how === 'settle' ? paidAmount : payment.amount) };
}

/**
 * A payment that lapsed is paid after all (a boleto compensated after its due date, a pix paid late): the provider
 * took the money and says so (payment.succeeded), whatever the merchant's charge already answered.
 */
export function payLate(ctx: SandboxContext, payment: Payment): EngineResult<SandboxEvent> {
  if (payment.state !== 'expired') return { ok: false, error: 'invalid_state' };
  payment.state = 'captured';
  payment.capturedAmount = payment.amount;
  return { ok: true, value: emitFor(ctx, payment, 'payment.succeeded', null, payment.amount) };
}

export type DisputeStage = 'opened' | 'updated' | 'won' | 'lost';

export function dispute(ctx: SandboxContext, payment: Payment, stage: DisputeStage): EngineResult<SandboxEvent> {
  if (payment.state !== 'captured') return { ok: false, error: 'invalid_state' };
  const type: EventType =
    stage === 'opened' ? 'dispute.opened' : stage === 'updated' ? 'dispute.updated' : 'dispute.closed';
  return { ok: true, value: emitFor(ctx, payment, type, stage) };
}

function emitFor(
  ctx: SandboxContext,
  payment: Payment,
  type: EventType,
  disputeStatus: string | null,
  amount: number = payment.amount,
): SandboxEvent {
  return ctx.emit({
    provider: payment.provider,
    account: payment.account,
    type,
    paymentId: payment.id,
    refundId: null,
    disputeStatus,
    reference: payment.reference,
    amount,
    currency: payment.currency,
  });
}
