/**
 * What the charge-cascade workflow and its activities exchange: ids, amounts and outcomes only — never a card
 * number, CVC or credential (those are read inside attemptCharge, just before the provider call).
 */
import type { NextAction } from './three-ds';

export type TransactionPaymentMethod = 'credit_card' | 'debit_card' | 'pix' | 'boleto' | 'wallet';

export const isCardMethod = (method: string) => method === 'credit_card' || method === 'debit_card';

export interface OrderItemSnapshot {
  productId: string;
  offerId: string;
  productName: string;
  offerName: string;
  billingCycle: string | null;
  cycleLimit: number | null;
  isFirstCharge: boolean;
  quantity: number;
  unitAmount: number;
  totalAmount: number;
  currency: string;
  installments: number | null;
}

export interface TransactionInput {
  transactionId: string;
  orderId: string;
  organizationId: string;
  merchantId: string;
  paymentMethod: TransactionPaymentMethod;
  chargeType: 'payment' | 'setup_verification';
  country: string;
  amount: number;
  currency: string;
  capture: boolean;
  walletType: string | null;
  installments: number | null;
  riskScore: number | null;
  customerId: string | null;
  cardTokenId: string | null;
  paymentInstrumentId: string | null;
  checkoutSessionId: string | null;
  externalOrderId: string | null;
  metadata: Record<string, unknown> | null;
  /** Routing attributes known up front (from the token or instrument metadata). */
  cardBrand: string | null;
  binCountry: string | null;
  order: {
    orderType: 'api' | 'checkout' | 'renewal' | 'trial_setup' | 'card_setup';
    recurrence: 'none' | 'initial' | 'subsequent';
    items: OrderItemSnapshot[];
  };
  /** Set on a subscription's renewal charge (the transaction's subscription_id); absent otherwise. */
  subscriptionId?: string | null;
  /** Card charges: where the buyer's browser goes after a 3-D Secure challenge (absent: none given). */
  returnUrl?: string | null;
}

/** error_code of a provider call that failed on every try, so its outcome is unknown (charge attempt or operation). */
export const UNRESOLVED_PROVIDER_CALL = 'provider_outcome_unknown';

export interface PlannedAttempt {
  connectorId: string;
  providerSlug: string;
  nodeId: string | null;
  /** Routing asks this provider to authenticate the card (3-D Secure); absent in plans made before it existed. */
  threeDs?: boolean;
}

export interface AttemptInput {
  transactionId: string;
  merchantId: string;
  attemptNumber: number;
  isFallback: boolean;
  attempt: PlannedAttempt;
  /** Stable across activity retries and replays: workflow id + attempt number. */
  idempotencyKey: string;
}

/**
 * The normalised outcome taxonomy every adapter maps its provider's codes onto (domain/connectors/connector.ts).
 * approved: done. pending: async (pix/boleto) or provider still deciding. soft/hard_decline: the provider refused.
 * processing_error: the provider answered without processing (4xx validation, credentials) or we never sent.
 * network_error: refused before the request was sent (connection refused, DNS failure): nothing reached the provider.
 * unknown: sent, but no definitive answer (a timeout, a connection reset mid-response, a 5xx) — the provider may
 * have charged, so only a lookup at the same provider (or the reconciler) can say what happened.
 */
export type Outcome =
  'approved' | 'pending' | 'soft_decline' | 'hard_decline' | 'processing_error' | 'network_error' | 'unknown';

/**
 * The one definition of "safe to try the next connector" (charge cascade and card verification): outcomes where the
 * provider certainly did not charge. A hard decline stops the cascade; `unknown` stops it too (it may have charged).
 */
export const RETRYABLE_OUTCOMES: ReadonlySet<Outcome> = new Set(['soft_decline', 'processing_error', 'network_error']);

export const isSafeToTryNextConnector = (outcome: Outcome): boolean => RETRYABLE_OUTCOMES.has(outcome);

/** The decline categories a merchant's routing settings may map (unknown always stops: it may have charged). */
export const DECLINE_CATEGORIES = ['soft_decline', 'hard_decline', 'processing_error', 'network_error'] as const;
export type DeclineCategory = (typeof DECLINE_CATEGORIES)[number];
export type DeclineAction = 'retry_next_connector' | 'stop';

/**
 * A merchant's decline table (GET/PUT /merchants/:merchant_id/routing-settings), read by the planning activity and
 * so recorded in the charge's history: a raw provider code's action wins over its category's; anything unmapped
 * keeps today's behaviour (RETRYABLE_OUTCOMES).
 */
export interface CascadePolicy {
  categories: Partial<Record<DeclineCategory, DeclineAction>>;
  codes: Record<string, DeclineAction>;
}

/**
 * Whether the cascade moves on after this attempt. Without a policy (histories recorded before the table existed,
 * or a merchant that never set one) it is exactly isSafeToTryNextConnector. `unknown` never moves on, whatever the
 * table says: the provider may have charged, and another connector would charge the customer twice.
 */
export function shouldTryNextConnector(
  result: Pick<AttemptResult, 'outcome' | 'rawCode'>,
  policy?: CascadePolicy | null,
) {
  const { outcome } = result;
  if (!policy || !(DECLINE_CATEGORIES as readonly string[]).includes(outcome)) return isSafeToTryNextConnector(outcome);
  const byCode =
    result.rawCode && Object.hasOwn(policy.codes, result.rawCode) ? policy.codes[result.rawCode] : undefined;
  const action = byCode ?? policy.categories[outcome as DeclineCategory];
  return action ? action === 'retry_next_connector' : isSafeToTryNextConnector(outcome);
}

export interface AttemptResult {
  outcome: Outcome;
  providerReference: string | null;
  paymentInstructions: Record<string, unknown> | null;
  /** The provider's raw decline/error code (for the merchant's decline table); absent in older histories. */
  rawCode?: string | null;
  /** Set when the issuer challenges the buyer (3-D Secure): the charge waits for it until expires_at. */
  nextAction?: NextAction | null;
}

/**
 * What a later lookup of an attempt left unknown found. answered: the provider's outcome (approved, a decline, or
 * never processed). unknown: still no answer (a payment the provider holds undecided is asked about again).
 * decided: the transaction is no longer pending — nothing left to resolve.
 */
export type AttemptLookup =
  | { status: 'answered'; outcome: Outcome; providerReference: string | null }
  | { status: 'unknown' }
  | { status: 'decided'; transactionStatus: string };

export interface TransactionResult {
  transactionId: string;
  status: string;
  /** A failed charge's failure_code (the one vocabulary), so the workflow's result in the Temporal UI says why. */
  failureCode?: string;
}

/** What a provider webhook tells the async-settlement workflow. */
export interface SettlementSignal {
  type: 'payment.succeeded' | 'payment.failed' | 'payment.expired';
  eventId: string;
}

/** Capture, void or refund of a transaction (workflow transactionOperationWorkflow). */
export interface OperationInput {
  kind: 'capture' | 'void' | 'refund';
  /** Unique per request; the workflow id derives from it. */
  operationId: string;
  transactionId: string;
  amount?: number;
  refundId?: string;
  reason?: string;
  metadata?: Record<string, unknown>;
}

/** beginOperation's refusal while another capture or void of the transaction is under way (the API answers 409). */
export const OPERATION_IN_PROGRESS = 'OPERATION_IN_PROGRESS';

export type OperationStart =
  | { ok: true; amount: number; currency: string; connectorId: string; providerReference: string }
  | { ok: false; code: string; message: string };
