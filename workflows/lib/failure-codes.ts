/**
 * The one failure_code vocabulary of transactions, attempts, events, dunning history and the charge workflow's
 * result, whatever the provider: a provider's own code is kept beside it as provider_code. Each adapter maps its
 * provider's codes onto the decline codes (domain/connectors/<provider>/transformers.ts); the rest are
 * Switchyard's own reasons, given where no provider decided. Pure: workflows read it too.
 */
import type { Outcome } from './transaction-types';

/** What a provider's decline means, in the words Stripe's decline codes use (docs/api-decisions.md). */
export const DECLINE_CODES = {
  insufficient_funds: 'The card has not enough funds or credit for this amount',
  do_not_honor: 'The issuer declined without saying why; the customer should contact their bank',
  generic_decline: 'The provider declined the charge with a code we do not know',
  expired_card: 'The card has expired',
  incorrect_cvc: 'The security code (CVC) is wrong',
  incorrect_expiry: 'The expiry date is wrong',
  invalid_number: 'The card number is not a valid card',
  lost_or_stolen: 'The card was reported lost or stolen',
  fraudulent: 'The issuer or the provider suspects fraud',
  restricted_card: 'The card cannot be used for this kind of payment (restricted, not permitted)',
  card_not_supported: 'The card or its brand is not accepted for this payment',
  currency_not_supported: 'The card cannot be charged in this currency',
  authentication_required: 'The issuer requires 3-D Secure authentication of the customer',
  card_velocity_exceeded: 'The card has gone over its limit of amount or number of payments',
  try_again_later: 'The issuer could not be reached; the same card may succeed later',
  invalid_amount: 'The amount is not one the issuer or the provider accepts',
  processing_error: 'The provider could not process the charge (an error, not a decline)',
} as const;

export type DeclineCode = keyof typeof DECLINE_CODES;

/** Switchyard's own reasons: no provider decided, or Switchyard settled the outcome (docs/api-decisions.md). */
export const SWITCHYARD_CODES = {
  no_route: 'No connector of the routing plan could take the charge',
  card_token_already_used: 'The card token was already used by another transaction',
  checkout_session_unavailable: 'The checkout session was paid by another payment, or could no longer be paid',
  declined: 'The provider declined and gave no code',
  payment_failed: 'The provider failed the pending payment and gave no reason',
  payment_expired: 'The pending payment was not completed in time',
  canceled: 'The pending payment was canceled',
  payment_instrument_revoked: 'The saved card was revoked and cannot be charged',
  test_clock_live_connector: "A test clock's customer is never charged on a live connector",
  provider_outcome_unknown: 'The provider did not answer; the outcome is being resolved',
  provider_outcome_in_doubt: 'The provider never told whether it charged; an operator decides',
  operation_in_doubt: 'A capture or void got no answer; an operator decides',
  provider_not_processed: 'The provider confirmed it never processed the request',
  reconciled_not_charged: 'Reconciliation found the card was not charged',
  reconciled_charge_reversed: 'Reconciliation found a charge after the transaction ended unpaid, and gave it back',
  reconciled_nothing_to_reverse: 'Reconciliation found nothing left to give back',
  authentication_failed: 'The buyer did not pass the 3-D Secure challenge',
  authentication_abandoned: 'The buyer did not complete the 3-D Secure challenge before it expired',
  merchant_website_required: '3-D Secure was required but the merchant has no website',
} as const;

/** A provider's code → ours: one table per adapter, in its transformers.ts. */
export type FailureCodeTable = Readonly<Record<string, DeclineCode>>;

const isOurs = (code: string) => Object.hasOwn(DECLINE_CODES, code) || Object.hasOwn(SWITCHYARD_CODES, code);

/** provider_code: the code an attempt recorded when a provider gave it; null for Switchyard's own reasons. */
export const providerCodeOf = (code: string | null): string | null =>
  code !== null && Object.hasOwn(SWITCHYARD_CODES, code) ? null : code;

/**
 * An attempt's failure_code from its provider's code: the adapter's table; a code already in the vocabulary (or
 * one of Switchyard's own reasons) as it is; otherwise by the attempt's outcome — an unknown decline is
 * generic_decline, an unknown error processing_error. null when nothing failed.
 */
export function failureCodeOf(
  table: FailureCodeTable,
  providerCode: string | null,
  outcome: Outcome | null,
): string | null {
  if (providerCode !== null) {
    if (Object.hasOwn(table, providerCode)) return table[providerCode];
    if (isOurs(providerCode)) return providerCode;
  }
  if (outcome === 'soft_decline' || outcome === 'hard_decline') return 'generic_decline';
  if (outcome === 'processing_error' || outcome === 'network_error') return 'processing_error';
  return providerCode;
}
