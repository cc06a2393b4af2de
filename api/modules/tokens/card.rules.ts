/**
 * Pure card checks: brand from the BIN, PAN length per brand, Luhn, CVC length and expiry. The browser SDK
 * (sdk/v1/card-frame.js) repeats the same rules so the buyer sees problems as they type; this copy decides.
 */

export const CARD_BRANDS = ['visa', 'mastercard', 'amex', 'elo', 'hipercard', 'discover', 'diners', 'jcb'] as const;
export type CardBrand = (typeof CARD_BRANDS)[number];

interface BrandRule {
  brand: CardBrand;
  /** Leading-digit ranges [low, high] compared on the same number of digits as `low`. */
  ranges: Array<[string, string]>;
  lengths: number[];
}

// Order matters: Elo and Hipercard ranges sit inside Visa/Discover/Diners space and must win over them.
const RULES: BrandRule[] = [
  {
    brand: 'elo',
    ranges: [
      ['401178', '401179'],
      ['431274', '431274'],
      ['438935', '438935'],
      ['451416', '451416'],
      ['457393', '457393'],
      ['457631', '457632'],
      ['504175', '504175'],
      ['506699', '506778'],
      ['509000', '509999'],
      ['627780', '627780'],
      ['636297', '636297'],
      ['636368', '636368'],
      ['650031', '650033'],
      ['650035', '650051'],
      ['650405', '650439'],
      ['650485', '650538'],
      ['650541', '650598'],
      ['650700', '650718'],
      ['650720', '650727'],
      ['650901', '650920'],
      ['651652', '651679'],
      ['655000', '655019'],
      ['655021', '655058'],
    ],
    lengths: [16],
  },
  {
    brand: 'hipercard',
    ranges: [
      ['606282', '606282'],
      ['384100', '384100'],
      ['384140', '384140'],
      ['384160', '384160'],
    ],
    lengths: [13, 16, 19],
  },
  {
    brand: 'amex',
    ranges: [
      ['34', '34'],
      ['37', '37'],
    ],
    lengths: [15],
  },
  {
    brand: 'diners',
    ranges: [
      ['300', '305'],
      ['36', '36'],
      ['38', '39'],
    ],
    lengths: [14, 16, 19],
  },
  { brand: 'jcb', ranges: [['3528', '3589']], lengths: [16, 17, 18, 19] },
  { brand: 'visa', ranges: [['4', '4']], lengths: [13, 16, 19] },
  {
    brand: 'mastercard',
    ranges: [
      ['51', '55'],
      ['2221', '2720'],
    ],
    lengths: [16],
  },
  {
    brand: 'discover',
    ranges: [
      ['6011', '6011'],
      ['644', '649'],
      ['65', '65'],
      ['622126', '622925'],
    ],
    lengths: [16, 17, 18, 19],
  },
];

const inRange = (pan: string, [low, high]: [string, string]) => {
  const head = pan.slice(0, low.length);
  return head.length === low.length && head >= low && head <= high;
};

/** The brand the BIN belongs to, or null when it is none we know. */
export function detectBrand(pan: string): CardBrand | null {
  return RULES.find((rule) => rule.ranges.some((range) => inRange(pan, range)))?.brand ?? null;
}

export function validLength(brand: CardBrand, pan: string): boolean {
  return RULES.find((rule) => rule.brand === brand)!.lengths.includes(pan.length);
}

export function luhnValid(pan: string): boolean {
  if (!/^[0-9]{12,19}$/.test(pan)) return false;
  let sum = 0;
  for (let i = 0; i < pan.length; i += 1) {
    let digit = pan.charCodeAt(pan.length - 1 - i) - 48;
    if (i % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return sum % 10 === 0;
}

/** Amex prints a 4-digit CID on the front; every other brand a 3-digit CVC/CVV. */
export const cvcLength = (brand: CardBrand): number => (brand === 'amex' ? 4 : 3);

/** The BIN we keep: 8 digits for PANs of 16 digits or more, 6 for shorter ones (PCI DSS truncation rules). */
export const binOf = (pan: string): string => pan.slice(0, pan.length >= 16 ? 8 : 6);

/** A card is valid through the last day of its expiry month; this is the first instant after it (UTC). */
export function cardExpiresAt(expMonth: number, expYear: number): Date {
  return new Date(Date.UTC(expYear, expMonth, 1));
}

export const isCardExpired = (expMonth: number, expYear: number, now: Date): boolean =>
  cardExpiresAt(expMonth, expYear).getTime() <= now.getTime();
