/**
 * Deterministic behaviour: which scenario a request plays out, from its test card number (cards) or the last two
 * digits of its amount in minor units (pix, boleto, wallet). README "Test cards" and docs/sandbox.md list these.
 * Card numbers are read here once and reduced to {scenario, brand, last4}: nothing downstream sees a PAN.
 */

/** Provider-neutral scenarios; each provider renders them in its own codes. */
export type Scenario =
  | 'approve'
  | 'do_not_honor'
  | 'insufficient_funds'
  | 'stolen_card'
  | 'lost_card'
  | 'expired_card'
  | 'invalid_number'
  | 'fraud'
  /** The issuer demands 3-D Secure and the provider cannot run it (or the charge is merchant-initiated). */
  | 'authentication_required'
  /** The buyer failed the 3-D Secure challenge. */
  | 'authentication_failed'
  /** 3-D Secure: the issuer always challenges; passed, it approves. */
  | 'three_ds_challenge'
  /** 3-D Secure: the issuer always challenges; passed, it declines (do_not_honor). */
  | 'three_ds_challenge_decline'
  /** 3-D Secure: supported, not required; authenticated without a challenge when the provider asks. */
  | 'three_ds_frictionless'
  | 'processing_error'
  | 'timeout'
  | 'slow'
  /** Override only: the provider approves (and records the payment under the key) but the answer is lost. */
  | 'approved_no_answer'
  /** Override only: the provider approves, but the caller gets a 5xx (e.g. from a gateway in front of it). */
  | 'approved_server_error'
  /** Override only: a card payment the provider holds for review (pending) until settled or failed by control. */
  | 'review'
  /**
   * Lookup override only (checkout, provider_c): the provider's read lags — it does not show yet what was just
   * processed (a payment being created, a capture, void or refund not yet listed), as a search index does.
   */
  | 'lag';

export type DeclineReason = Exclude<
  Scenario,
  | 'approve'
  | 'processing_error'
  | 'timeout'
  | 'slow'
  | 'approved_no_answer'
  | 'approved_server_error'
  | 'review'
  | 'lag'
  | 'three_ds_challenge'
  | 'three_ds_challenge_decline'
  | 'three_ds_frictionless'
>;

export interface TestCard {
  number: string;
  brand: string;
  /** What a charge of the card plays out. */
  scenario: Scenario;
  description: string;
  /**
   * Its zero-amount verification approves whatever `scenario` says, so the card can be saved and decline later
   * (Stripe's 4000 0000 0000 0341): how a failed renewal is produced with nothing but a saved card.
   */
  verifies?: true;
}

export const TEST_CARDS: readonly TestCard[] = [
  { number: '4242424242424242', brand: 'visa', scenario: 'approve', description: 'Approved' },
  { number: '5555555555554444', brand: 'mastercard', scenario: 'approve', description: 'Approved' },
  { number: '378282246310005', brand: 'amex', scenario: 'approve', description: 'Approved' },
  { number: '6362970000457013', brand: 'elo', scenario: 'approve', description: 'Approved' },
  { number: '4000000000000002', brand: 'visa', scenario: 'do_not_honor', description: 'Soft decline: do not honour' },
  {
    number: '4000000000009995',
    brand: 'visa',
    scenario: 'insufficient_funds',
    description: 'Soft decline: insufficient funds',
  },
  { number: '4000000000009979', brand: 'visa', scenario: 'stolen_card', description: 'Hard decline: stolen card' },
  { number: '4000000000009987', brand: 'visa', scenario: 'lost_card', description: 'Hard decline: lost card' },
  { number: '4000000000000069', brand: 'visa', scenario: 'expired_card', description: 'Hard decline: expired card' },
  {
    number: '4000000000000309',
    brand: 'visa',
    scenario: 'invalid_number',
    description: 'Hard decline: invalid card number',
  },
  { number: '4100000000000019', brand: 'visa', scenario: 'fraud', description: 'Hard decline: suspected fraud' },
  {
    number: '4000000000000341',
    brand: 'visa',
    scenario: 'do_not_honor',
    description: 'Saves (the zero-amount verification approves), then every charge declines: do not honour',
    verifies: true,
  },
  { number: '4000000000000119', brand: 'visa', scenario: 'processing_error', description: 'The provider answers 5xx' },
  {
    number: '4000000000000408',
    brand: 'visa',
    scenario: 'timeout',
    description: 'The provider never answers (caller times out)',
  },
  { number: '4000000000000507', brand: 'visa', scenario: 'slow', description: 'Approved after ~2 s' },
  {
    number: '4000000000003220',
    brand: 'visa',
    scenario: 'three_ds_challenge',
    description:
      '3-D Secure challenge required; approved once passed (declined authentication_required where the provider runs no 3-D Secure)',
  },
  {
    number: '4000002760003184',
    brand: 'visa',
    scenario: 'three_ds_challenge',
    description:
      'Saves (the zero-amount verification approves); every charge then needs 3-D Secure: challenged with the customer present, declined authentication_required when merchant-initiated (a renewal)',
    verifies: true,
  },
  {
    number: '4000000000003055',
    brand: 'visa',
    scenario: 'three_ds_frictionless',
    description: '3-D Secure supported, not required: authenticated without a challenge when asked',
  },
  {
    number: '4000008400001629',
    brand: 'visa',
    scenario: 'three_ds_challenge_decline',
    description: '3-D Secure challenge required; declined (card_declined) once passed',
  },
];

/** Last two digits of the amount (minor units) → scenario, for pix, boleto and wallet payments. */
export const AMOUNT_SCENARIOS: Readonly<Record<number, Scenario>> = {
  51: 'do_not_honor',
  52: 'insufficient_funds',
  53: 'fraud',
  54: 'processing_error',
  55: 'timeout',
  56: 'slow',
};

export function luhnValid(number: string): boolean {
  if (!/^\d{12,19}$/.test(number)) return false;
  let sum = 0;
  let double = false;
  for (let i = number.length - 1; i >= 0; i--) {
    let digit = number.charCodeAt(i) - 48;
    if (double) digit = digit * 2 > 9 ? digit * 2 - 9 : digit * 2;
    sum += digit;
    double = !double;
  }
  return sum % 10 === 0;
}

export function brandOf(number: string): string {
  if (/^3[47]/.test(number)) return 'amex';
  if (/^(636368|636297|438935|504175|451416|5067|4576|4011)/.test(number)) return 'elo';
  if (/^(606282|3841)/.test(number)) return 'hipercard';
  if (/^4/.test(number)) return 'visa';
  if (/^(5[1-5]|2[2-7])/.test(number)) return 'mastercard';
  if (/^(6011|65)/.test(number)) return 'discover';
  if (/^3(0[0-5]|[68])/.test(number)) return 'diners';
  if (/^35/.test(number)) return 'jcb';
  return 'unknown';
}

export interface CardFacts {
  scenario: Scenario;
  brand: string;
  last4: string;
  /** Present on a card whose zero-amount verification approves whatever its scenario (TestCard.verifies). */
  verifies?: true;
}

/**
 * The only place a card number is read. A number failing Luhn is an invalid number; an expiry in the past is an
 * expired card, whatever the number; other well-formed numbers not in the table approve.
 */
export function cardFacts(
  card: { number: string; expMonth: number | null; expYear: number | null },
  now = new Date(),
): CardFacts {
  const number = card.number.replace(/[\s-]/g, '');
  const last4 = number.slice(-4);
  const brand = brandOf(number);
  if (!luhnValid(number)) return { scenario: 'invalid_number', brand, last4 };
  const listed = TEST_CARDS.find((test) => test.number === number);
  if (card.expMonth !== null && card.expYear !== null && isExpired(card.expMonth, card.expYear, now)) {
    return { scenario: 'expired_card', brand, last4 };
  }
  return { scenario: listed?.scenario ?? 'approve', brand, last4, ...(listed?.verifies ? { verifies: true } : {}) };
}

function isExpired(month: number, year: number, now: Date): boolean {
  const fullYear = year < 100 ? 2000 + year : year;
  if (month < 1 || month > 12) return true;
  return fullYear < now.getUTCFullYear() || (fullYear === now.getUTCFullYear() && month < now.getUTCMonth() + 1);
}

export function amountScenario(amount: number): Scenario {
  return AMOUNT_SCENARIOS[amount % 100] ?? 'approve';
}
