/**
 * The sandbox's whole state, in memory (it is a sandbox: a restart forgets everything). Payments, refunds, the
 * ledger of every provider call, stored idempotent replies, registered webhook endpoints, emitted events and
 * forced-outcome overrides. No card number is ever stored: payments keep brand and last4 only.
 */
import { randomBytes, randomInt } from 'node:crypto';
import type { DeclineReason, Scenario } from './cards';
import type { Reply } from './http';

export const SANDBOX_PROVIDERS = ['provider_a', 'provider_b', 'provider_c', 'provider_d', 'checkout'] as const;
export type SandboxProvider = (typeof SANDBOX_PROVIDERS)[number];
export type Method = 'card' | 'pix' | 'boleto' | 'wallet';
export type PaymentState =
  'authorized' | 'captured' | 'voided' | 'declined' | 'pending' | 'expired' | 'verified' | 'requires_action';

/** A card payment's 3-D Secure: how the issuer authenticated it, and (a challenge) where the buyer returns after. */
export interface PaymentThreeDs {
  flow: 'challenge' | 'frictionless';
  /** null while the challenge is open. */
  result: 'authenticated' | 'failed' | null;
  returnUrl: string | null;
  /** The shared challenge page (sandbox/challenge.ts) each provider links in its own shape; null when frictionless. */
  challengeUrl: string | null;
  /** Where the buyer goes after a failed challenge, where the provider takes a separate URL (Checkout.com). */
  failureUrl?: string | null;
  /** The challenge card that declines once passed. */
  declineAfter: boolean;
}

export interface Instructions {
  type: 'pix' | 'boleto';
  /** pix copy-paste code or boleto digitable line. */
  code: string;
  url: string;
  expiresAt: string;
}

export interface Payment {
  id: string;
  provider: SandboxProvider;
  account: string;
  reference: string | null;
  amount: number;
  currency: string;
  method: Method;
  cardBrand: string | null;
  cardLast4: string | null;
  state: PaymentState;
  /** false: manual capture — an approval, also a late one (a pending payment settled), only authorizes it. */
  capture: boolean;
  declineReason: DeclineReason | null;
  capturedAmount: number;
  refundedAmount: number;
  networkTransactionId: string | null;
  instructions: Instructions | null;
  threeDs?: PaymentThreeDs | null;
  createdAt: string;
}

export interface Refund {
  id: string;
  paymentId: string;
  provider: SandboxProvider;
  account: string;
  amount: number;
  currency: string;
  reference: string | null;
  state: 'pending' | 'succeeded' | 'failed';
  createdAt: string;
}

export type Operation =
  | 'authorize'
  | 'verify'
  | 'capture'
  | 'void'
  | 'refund'
  | 'tokenize'
  | 'lookup'
  | 'test_credentials'
  | 'oauth_token'
  | 'settle'
  | 'expire'
  | 'fail'
  | 'dispute'
  | 'refund_result';

/** approved/authorized/pending/declined: processed. error: 5xx. timeout: never answered. rejected: refused before processing. */
export type LedgerOutcome = 'approved' | 'authorized' | 'pending' | 'declined' | 'error' | 'timeout' | 'rejected';

export interface LedgerEntry {
  id: string;
  provider: SandboxProvider;
  account: string | null;
  operation: Operation;
  idempotency_key: string | null;
  reference: string | null;
  amount: number | null;
  currency: string | null;
  payment_method: Method | null;
  card_last4: string | null;
  outcome: LedgerOutcome;
  /** Provider-neutral reason (decline scenario, or why a request was rejected). */
  reason: string | null;
  provider_reference: string | null;
  http_status: number | null;
  replayed: boolean;
  at: string;
  /** provider_a: the network transaction id a merchant-initiated authorization referenced (mit_exemption). */
  mit_reference?: string | null;
}

export interface WebhookEndpoint {
  id: string;
  provider: SandboxProvider;
  account: string;
  url: string;
  secret: string;
  createdAt: string;
}

export type EventType =
  | 'payment.succeeded'
  | 'payment.failed'
  | 'payment.expired'
  | 'refund.succeeded'
  | 'refund.failed'
  | 'dispute.opened'
  | 'dispute.updated'
  | 'dispute.closed';

export interface Delivery {
  endpointId: string;
  url: string;
  attempt: number;
  status: number | null;
  error: string | null;
  at: string;
}

export interface SandboxEvent {
  id: string;
  provider: SandboxProvider;
  account: string;
  type: EventType;
  paymentId: string;
  refundId: string | null;
  /** Disputes: opened | won | lost (closed events), or the stage for updates. */
  disputeStatus: string | null;
  reference: string | null;
  amount: number;
  currency: string;
  createdAt: string;
  /** The endpoints registered for its account when it was emitted (0: it is delivered to no one, ever). */
  endpoints: number;
  deliveries: Delivery[];
}

/** A forced scenario for the next calls matching provider (+ account, + reference); remaining null = until removed. */
export interface Override {
  id: string;
  provider: SandboxProvider;
  account: string | null;
  reference: string | null;
  scenario: Scenario;
  remaining: number | null;
  /**
   * Which calls it applies to: authorizations/verifications (default), lookups by idempotency key, or (provider_a)
   * captures, voids and refunds, which play `slow`, `approved_server_error` or `processing_error` (operationOverride,
   * providers/common.ts).
   */
  operation: 'authorize' | 'lookup' | 'capture' | 'void' | 'refund';
}

export interface StoredReply {
  fingerprint: string;
  reply: Reply;
  entry: LedgerEntry;
}

export class Store {
  readonly payments = new Map<string, Payment>();
  readonly refunds = new Map<string, Refund>();
  readonly ledger: LedgerEntry[] = [];
  readonly idempotent = new Map<string, StoredReply>();
  readonly inFlight = new Set<string>();
  readonly endpoints: WebhookEndpoint[] = [];
  readonly events: SandboxEvent[] = [];
  readonly overrides: Override[] = [];
  /** provider_c OAuth: issued access token → client_id (the account). */
  readonly oauthTokens = new Map<string, string>();
  /** provider_c card tokens: id → facts (never the number). */
  readonly cardTokens = new Map<
    string,
    { scenario: Scenario; brand: string; last4: string; expMonth: number; expYear: number }
  >();

  record(entry: Omit<LedgerEntry, 'id' | 'at' | 'replayed'> & { replayed?: boolean }): LedgerEntry {
    const full: LedgerEntry = {
      id: `led_${randomHex(8)}`,
      at: new Date().toISOString(),
      ...entry,
      replayed: entry.replayed ?? false,
    };
    this.ledger.push(full);
    return full;
  }

  /** Consumes the first override matching the call, if any (cascade tests force one provider to fail). */
  takeOverride(
    provider: SandboxProvider,
    account: string,
    reference: string | null,
    operation: Override['operation'],
    /** Only overrides playing one of these (absent: any). */
    scenarios?: readonly Scenario[],
  ): Scenario | null {
    const found = this.overrides.find(
      (o) =>
        o.operation === operation &&
        (!scenarios || scenarios.includes(o.scenario)) &&
        o.provider === provider &&
        (o.account === null || o.account === account) &&
        (o.reference === null || o.reference === reference) &&
        (o.remaining === null || o.remaining > 0),
    );
    if (!found) return null;
    if (found.remaining !== null) found.remaining -= 1;
    return found.scenario;
  }

  /** Forgets what matches every given filter (all state when none is given). */
  reset(filter: { provider?: string; account?: string; reference?: string }): number {
    const matches = (item: { provider: string; account: string | null; reference?: string | null }) =>
      (!filter.provider || item.provider === filter.provider) &&
      (!filter.account || item.account === filter.account) &&
      (!filter.reference || item.reference === filter.reference);
    const before = this.ledger.length;
    removeWhere(this.ledger, matches);
    removeWhere(this.events, matches);
    for (const [id, payment] of this.payments) if (matches(payment)) this.payments.delete(id);
    for (const [id, refund] of this.refunds) if (matches(refund)) this.refunds.delete(id);
    for (const [key, stored] of this.idempotent) if (matches(stored.entry)) this.idempotent.delete(key);
    if (!filter.reference) {
      removeWhere(this.endpoints, matches);
      removeWhere(this.overrides, matches);
    }
    if (!filter.provider && !filter.account && !filter.reference) {
      this.oauthTokens.clear();
      this.cardTokens.clear();
    }
    return before - this.ledger.length;
  }
}

function removeWhere<T>(list: T[], predicate: (item: T) => boolean): void {
  for (let i = list.length - 1; i >= 0; i--) if (predicate(list[i])) list.splice(i, 1);
}

export function randomHex(bytes: number): string {
  return randomBytes(bytes).toString('hex');
}

const LOWER = 'abcdefghijklmnopqrstuvwxyz0123456789';
const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

export function randomChars(length: number, alphabet: 'lower' | 'upper' | 'alnum' | 'digits' = 'alnum'): string {
  const chars =
    alphabet === 'lower' ? LOWER : alphabet === 'upper' ? UPPER : alphabet === 'digits' ? '0123456789' : ALNUM;
  let out = '';
  for (let i = 0; i < length; i++) out += chars[randomInt(chars.length)];
  return out;
}

/** A numeric id (Mercado Pago / Authorize.net style) that never starts with 0. */
export function numericId(digits: number): string {
  return String(randomInt(1, 10)) + randomChars(digits - 1, 'digits');
}
