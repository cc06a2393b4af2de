/**
 * What every provider module shares: its shape (a router, how credentials name an account, how a neutral event
 * becomes its signed webhook) and the authorization flow that plays out a scenario (hang, 5xx, slow, decide).
 */
import { createHash } from 'node:crypto';
import { createPayment, decide, type PaymentInput, type SandboxContext } from '../engine';
import { HANG, type Reply, type Router } from '../http';
import type { LedgerDraft, Processed } from '../idempotency';
import type { Scenario } from '../cards';
import type {
  LedgerOutcome,
  Operation,
  Payment,
  Refund,
  SandboxEvent,
  SandboxProvider,
  WebhookEndpoint,
} from '../store';

export interface RenderedWebhook {
  headers: Record<string, string>;
  body: string;
}

export interface ProviderModule {
  slug: SandboxProvider;
  router: Router;
  /** The account a set of credentials (as in domain/connectors/credentials.ts) belongs to; null when malformed. */
  accountOf(credentials: Record<string, unknown>): string | null;
  /** This provider's notification for a neutral event, signed with the endpoint's secret. */
  webhook(
    event: SandboxEvent,
    payment: Payment | null,
    refund: Refund | null,
    endpoint: WebhookEndpoint,
  ): RenderedWebhook;
  /** false when the real provider sends no dispute notifications (the control endpoint then refuses). */
  supportsDisputes?: boolean;
  /**
   * Where the provider settles in daily batches (provider_d): settles the account's batch now — its transactions
   * leave the unsettled list for a settled batch. Absent elsewhere (the control endpoint then refuses).
   */
  settleBatch?(account: string): { batch_id: string; transactions: number };
}

export type ProviderFactory = (ctx: SandboxContext) => ProviderModule;

/** A stable, non-secret account id derived from a secret (so the ledger never shows the secret itself). */
export function accountFromSecret(prefix: string, secret: string): string {
  return `${prefix}${createHash('sha256').update(secret).digest('hex').slice(0, 16)}`;
}

/** The documented way to make a credential fail: any value containing "invalid". */
export function looksInvalid(...values: unknown[]): boolean {
  return values.some((value) => typeof value === 'string' && value.toLowerCase().includes('invalid'));
}

export function draft(operation: Operation, fields: Partial<LedgerDraft> & { outcome: LedgerOutcome }): LedgerDraft {
  return {
    operation,
    reference: null,
    amount: null,
    currency: null,
    payment_method: null,
    card_last4: null,
    reason: null,
    provider_reference: null,
    ...fields,
  };
}

/** A request refused before processing (bad credentials, validation, unknown payment): ledger + provider reply. */
export function rejected(
  operation: Operation,
  reason: string,
  reply: Reply,
  fields: Partial<LedgerDraft> = {},
): Processed {
  return { reply, entry: draft(operation, { outcome: 'rejected', reason, ...fields }) };
}

export function ledgerOutcome(payment: Payment): LedgerOutcome {
  switch (payment.state) {
    case 'declined':
      return 'declined';
    case 'pending':
      return 'pending';
    case 'authorized':
      return 'authorized';
    default:
      return 'approved';
  }
}

export interface AuthorizeSpec {
  operation: 'authorize' | 'verify';
  input: PaymentInput;
  render: (payment: Payment) => Reply;
  /** The provider's 5xx reply for the processing-error scenario. */
  serverError: () => Reply;
}

/**
 * A capture, void or refund's forced scenario (control POST /overrides with operation), if any: `slow` has
 * waited slowMs when this returns; the caller plays `approved_server_error` (processed, answered 5xx).
 */
export async function operationOverride(
  ctx: SandboxContext,
  provider: SandboxProvider,
  account: string,
  operation: 'capture' | 'void' | 'refund',
): Promise<Scenario | null> {
  const forced = ctx.store.takeOverride(provider, account, null, operation);
  if (forced === 'slow') await ctx.sleep(ctx.slowMs);
  return forced;
}

/** Plays the decided scenario: timeout hangs, processing_error answers 5xx, slow waits, the rest create a payment. */
export async function authorizeFlow(ctx: SandboxContext, spec: AuthorizeSpec): Promise<Processed> {
  const { input } = spec;
  const scenario = decide(ctx, input);
  const base = {
    reference: input.reference,
    amount: input.amount,
    currency: input.currency,
    payment_method: input.method,
    card_last4: input.card?.last4 ?? null,
  };
  if (scenario === 'timeout')
    return { reply: HANG, entry: draft(spec.operation, { ...base, outcome: 'timeout', reason: 'timeout' }) };
  if (scenario === 'processing_error') {
    return {
      reply: spec.serverError(),
      entry: draft(spec.operation, { ...base, outcome: 'error', reason: 'processing_error' }),
    };
  }
  if (scenario === 'slow') await ctx.sleep(ctx.slowMs);
  const payment = createPayment(ctx, input, scenario);
  const entry = draft(spec.operation, {
    ...base,
    outcome: ledgerOutcome(payment),
    reason: payment.declineReason ?? (scenario === 'approve' || scenario === 'slow' ? null : scenario),
    provider_reference: payment.id,
  });
  // Processed and kept under the key, but the caller never learns it: the case a lookup by key must resolve.
  if (scenario === 'approved_no_answer') return { reply: HANG, entry, stored: spec.render(payment) };
  if (scenario === 'approved_server_error') return { reply: spec.serverError(), entry, stored: spec.render(payment) };
  return { reply: spec.render(payment), entry };
}

/** A forced `lookup` scenario (control POST /overrides, operation lookup): it hangs or answers 5xx; else null. */
export function lookupOverride(
  ctx: SandboxContext,
  scope: { provider: SandboxProvider; account: string },
  serverError: () => Reply,
): Processed | null {
  const forced = ctx.store.takeOverride(scope.provider, scope.account, null, 'lookup', ['timeout', 'processing_error']);
  if (forced === 'timeout') return { reply: HANG, entry: draft('lookup', { outcome: 'timeout', reason: 'timeout' }) };
  if (forced === 'processing_error')
    return { reply: serverError(), entry: draft('lookup', { outcome: 'error', reason: 'processing_error' }) };
  return null;
}

/**
 * Whether this lookup lags (control POST /overrides, operation lookup, scenario lag): the read does not show yet
 * what the provider has just processed, as a search index or an asynchronous action list does.
 */
export function lookupLags(ctx: SandboxContext, scope: { provider: SandboxProvider; account: string }): boolean {
  return ctx.store.takeOverride(scope.provider, scope.account, null, 'lookup', ['lag']) === 'lag';
}

/** The ledger fields describing an operation on an existing payment. */
export function paymentFields(payment: Payment, amount: number | null = null): Partial<LedgerDraft> {
  return {
    reference: payment.reference,
    amount: amount ?? payment.amount,
    currency: payment.currency,
    payment_method: payment.method,
    card_last4: payment.cardLast4,
    provider_reference: payment.id,
  };
}

export const ISO_CURRENCY = /^[A-Za-z]{3}$/;
