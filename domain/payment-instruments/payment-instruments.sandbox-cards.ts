/**
 * The sandbox's test card numbers that test-mode shortcuts stand for (the sandbox plays each card's scenario:
 * sandbox/cards.ts, README "Test cards"). They are sealed and charged like a typed card, so only the provider call
 * ever sees them: never a response, a log line or a workflow payload.
 */

/** Stripe-style test payment methods a test-mode API call can save to a customer without any card entry. */
export const TEST_PAYMENT_METHODS = {
  pm_card_visa: '4242424242424242',
  pm_card_mastercard: '5555555555554444',
  pm_card_amex: '378282246310005',
  /** Saves (its zero-amount check passes), then every charge declines do_not_honor. */
  pm_card_chargeDeclined: '4000000000000341',
  /** Saves, then every charge declines insufficient_funds. */
  pm_card_chargeDeclinedInsufficientFunds: '4000000000009995',
  /** The issuer challenges every customer-initiated charge with 3-D Secure. */
  pm_card_threeDSecureRequired: '4000000000003220',
} as const;

export type TestPaymentMethod = keyof typeof TEST_PAYMENT_METHODS;

/** The failure_codes a test clock's "next renewal fails" can ask for, each with the sandbox card that declines so. */
export const RENEWAL_FAILURE_CARDS = {
  insufficient_funds: '4000000000009995',
  do_not_honor: '4000000000000002',
  expired_card: '4000000000000069',
  lost_or_stolen: '4000000000009987',
  fraudulent: '4100000000000019',
  invalid_number: '4000000000000309',
} as const;

export type RenewalFailureCode = keyof typeof RENEWAL_FAILURE_CARDS;
