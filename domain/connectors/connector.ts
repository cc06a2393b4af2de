/**
 * The one small interface every provider adapter implements, the normalised outcome taxonomy that the
 * charge-cascade workflow reasons about (each adapter maps its provider's own codes onto it exactly once), and the
 * errors an adapter call can end in.
 */

import type { Outcome } from '../../workflows/lib/transaction-types';
import type { ThreeDs } from '../../workflows/lib/three-ds';

export type { Outcome };

export type PaymentMethod = 'card' | 'pix' | 'boleto' | 'wallet';

export interface CardData {
  number: string;
  cvc: string | null;
  expMonth: number;
  expYear: number;
  holderName: string | null;
}

export interface ProviderCall {
  /** Sandbox base URL for test-mode connectors (sandbox/), the provider's live URL otherwise. */
  baseUrl: string;
  /** Decrypted just before the call; never logged, never returned, never put in a workflow payload. */
  credentials: Record<string, unknown>;
  /** Stable across activity retries (workflow id + attempt number): the provider deduplicates on it. */
  idempotencyKey: string;
  timeoutMs: number;
}

export interface AuthorizeRequest {
  amount: number;
  currency: string;
  paymentMethod: PaymentMethod;
  /** Card charges only. */
  card?: CardData;
  /** false = authorize only (pre-authorization). */
  capture: boolean;
  installments?: number;
  /** Our reference (tx_…), echoed back in provider webhooks. */
  reference: string;
  customer?: { email: string | null; name: string | null; documentNumber?: string | null };
  /** Merchant-initiated charge on a stored instrument. */
  recurring?: { networkTransactionId: string | null };
  /**
   * Customer-initiated card charges: `request` asks the provider to authenticate (3-D Secure); without it an issuer
   * may still demand a challenge. `returnUrl` is where the provider sends the buyer after one (our return endpoint).
   */
  threeDs?: { request: boolean; returnUrl: string };
}

/**
 * What the provider sent the buyer's browser back with after a challenge (Adyen's `redirectResult`), as the return
 * endpoint received it: a few short string fields, never card data
 * (api/modules/transactions/three-ds-return.middleware.ts).
 */
export type ReturnParams = Readonly<Record<string, string>>;

export interface ProviderResult {
  outcome: Outcome;
  /** The provider's id for the payment/refund; null when the call never reached it. */
  providerReference: string | null;
  /** The provider's own status/decline code, kept verbatim for support. */
  rawCode: string | null;
  rawMessage: string | null;
  /** Set for pix/boleto (qr code, copy-paste code, barcode, due date) — never card data. */
  paymentInstructions?: Record<string, unknown> | null;
  networkTransactionId?: string | null;
  /** How the card was authenticated, where the provider says (card charges); `requested` is the caller's to say. */
  threeDs?: Omit<ThreeDs, 'requested'> | null;
  /** The issuer challenges the buyer: the provider's challenge page (outcome pending until it is done). */
  challengeUrl?: string | null;
}

/**
 * A lookup of an earlier request by its idempotency key. found: the provider processed it (result is what it
 * decided). not_found: the provider holds nothing under the key (it never processed the request). unknown: the lookup
 * could not tell (no answer, 5xx, the original still in flight).
 */
export type LookupOperation = 'authorize' | 'verify' | 'capture' | 'void' | 'refund';

/** What was sent under the key: the operation, and for captures/voids/refunds the payment they modified. */
export interface LookupRequest {
  operation: LookupOperation;
  providerReference?: string;
  /**
   * Our reference the original request carried (AuthorizeRequest.reference: the tx_ id; VerifyCardRequest's; a
   * refund's ref_ id; a capture's or void's tx_ id). The providers that find a payment only by the merchant's
   * reference (Adyen, Mercado Pago, Checkout.com) need it; every caller says it, so no adapter parses it back out of
   * an idempotency key whose shape belongs to the workflows.
   */
  reference: string;
  /**
   * For authorize: whether the charge asked for capture (AuthorizeRequest.capture). Where a lookup can only cancel
   * (Adyen's technical cancel), an authorization known to be uncaptured is resolved; a maybe-captured one is not.
   */
  capture?: boolean;
}

/**
 * What a provider's read (the lookup) can see of a request it is still working on. seesInFlight: a request the
 * provider has taken shows at once (a strongly consistent read), so finding nothing means it was never processed.
 * Otherwise (a search index, a list of only decided actions) finding nothing means that only once graceMs have passed
 * since the request was sent; before that the lookup cannot tell. activities/transactions/provider-call.ts reads every
 * lookup with it (readLookup); docs/api-decisions.md, "What each provider's read can see", tabulates them.
 */
export type ReadVisibility = { seesInFlight: true } | { seesInFlight: false; graceMs: number };

export type ProviderReads = Readonly<Record<LookupOperation, ReadVisibility>>;

export type LookupResult =
  { status: 'found'; result: ProviderResult } | { status: 'not_found' } | { status: 'unknown'; rawCode: string | null };

export interface InboundWebhook {
  /** The provider's event id: the dedup key for applying it once. */
  eventId: string;
  type:
    | 'payment.succeeded'
    | 'payment.failed'
    | 'payment.expired'
    | 'refund.succeeded'
    | 'refund.failed'
    /** A capture or void decided (where the provider notifies them: Adyen's CAPTURE, CAPTURE_FAILED, CANCELLATION). */
    | 'capture.succeeded'
    | 'capture.failed'
    | 'void.succeeded'
    | 'void.failed'
    | 'dispute.opened'
    | 'dispute.updated'
    | 'dispute.closed';
  /** The payment's (for a capture or void notification: the payment it modified, not the modification's own). */
  providerReference: string;
  /** Our reference when the provider echoes it. */
  reference: string | null;
  amount: number | null;
  occurredAt: string;
  raw: Record<string, unknown>;
  /** For dispute.closed: who the dispute was decided for, when the provider says (absent or null: unknown). */
  disputeOutcome?: DisputeOutcome | null;
  /**
   * For payment.failed: the provider's decline code and message as its webhook states them, read as the adapter
   * reads a synchronous decline's rawCode / rawMessage (absent or null: the webhook carries none). Unsanitized:
   * domain/transactions/transactions.late-declines.ts keeps only a safe code and a scrubbed message.
   */
  decline?: WebhookDecline | null;
}

export interface WebhookDecline {
  code: string | null;
  message: string | null;
}

export type DisputeOutcome = 'won' | 'lost';

/** A provider's dispute status read as an outcome: `won` / `lost`, anything else unknown. */
export const wonOrLost = (status: string | null): DisputeOutcome | null =>
  status === 'won' || status === 'lost' ? status : null;

export interface ConnectorAdapter {
  readonly slug: string;
  /** Per operation, what its lookup can see of work in flight (data, not code: one reading for every caller). */
  readonly reads: ProviderReads;
  authorize(call: ProviderCall, request: AuthorizeRequest): Promise<ProviderResult>;
  capture(
    call: ProviderCall,
    request: { providerReference: string; amount: number; currency: string },
  ): Promise<ProviderResult>;
  void(call: ProviderCall, request: { providerReference: string }): Promise<ProviderResult>;
  refund(
    call: ProviderCall,
    request: { providerReference: string; amount: number; currency: string; reference: string },
  ): Promise<ProviderResult>;
  /**
   * Looks up the request sent under call.idempotencyKey (an authorize, verify, capture, void or refund), without
   * repeating it: how an unknown outcome (timeout, reset, 5xx, key still in use) is resolved. The result reads as
   * the operation's own answer would. Never throws for transport failures.
   */
  lookup(call: ProviderCall, request: LookupRequest): Promise<LookupResult>;
  /**
   * The payment as it stands now at the provider (read by its reference, never repeated): how a pending payment
   * (pix, boleto, held for review) is settled when no webhook arrives. Absent where the provider offers no read.
   */
  retrieve?(call: ProviderCall, request: { providerReference: string }): Promise<ProviderResult>;
  /**
   * The verdict of a 3-D Secure challenge from what the buyer's return carried, where the provider decides only on
   * that (Adyen's `/payments/details` with `redirectResult`); outcome unknown when the return carried nothing usable.
   * Absent where `retrieve` reads the verdict.
   */
  completeAuthentication?(
    call: ProviderCall,
    request: { providerReference: string | null; returnParams: ReturnParams },
  ): Promise<ProviderResult>;
  /** Zero-amount card verification (instrument enrolment). */
  verifyCard(
    call: ProviderCall,
    request: { card: CardData; currency: string; reference: string },
  ): Promise<ProviderResult>;
  /**
   * Verifies the signature with the connector's webhook secret and parses the event; throws
   * InvalidWebhookError when the signature or payload is bad.
   */
  parseWebhook(request: {
    headers: Record<string, string | undefined>;
    rawBody: string;
    webhookSecret: string | null;
  }): InboundWebhook;
  /** A cheap authenticated call proving the credentials work. */
  testCredentials(call: Omit<ProviderCall, 'idempotencyKey'>): Promise<{ ok: boolean; message: string }>;
}

// ── Errors ───────────────────────────────────────────────────────────────────────────────────────────────────
// Provider declines are never errors: they are ProviderResults. These are for the transport (mapped to network_error
// or unknown by the adapters themselves), for an attempt that cannot be made, and for inbound webhooks.

/**
 * The provider could not be reached or did not answer within the call's timeout. Never carries request data.
 * refused: the request was never sent (connection refused, DNS failure). timeout / connection (reset mid-exchange):
 * it may have been sent and processed.
 */
export class ProviderUnreachableError extends Error {
  constructor(
    readonly kind: 'refused' | 'timeout' | 'connection',
    message: string,
  ) {
    super(message);
    this.name = 'ProviderUnreachableError';
  }
}

/** adapterFor() on a slug without an adapter (provider_e is inactive and has none). */
export class UnsupportedProviderError extends Error {
  constructor(readonly slug: string) {
    super(`No connector adapter for provider ${slug}`);
    this.name = 'UnsupportedProviderError';
  }
}

/**
 * The card an attempt was to hand the adapter cannot be read for a business reason (a token used or expired, an
 * instrument gone), not an outage: the attempt fails and is not retried (activities/vault/index.ts opens cards).
 */
export class CardUnavailableError extends Error {
  override name = 'CardUnavailableError';
}

/** A webhook whose signature or payload is bad (parseWebhook). */
export class InvalidWebhookError extends Error {}

/**
 * The signature is valid but the event is one we do not act on (e.g. an intermediate status). The receiver should
 * acknowledge it (2xx) so the provider stops retrying, and ignore it. Not an InvalidWebhookError.
 */
export class UnhandledWebhookEventError extends Error {
  constructor(readonly eventType: string) {
    super(`Unhandled webhook event type ${eventType}`);
    this.name = 'UnhandledWebhookEventError';
  }
}
