/**
 * Merchant field rules that a JSON schema can't express readably: they normalise a value or report a
 * message for it. Callers collect the messages and raise one validation error naming every bad field.
 */
import type { MerchantAddress } from '../../../db/entities';

export type FieldResult<T> = { value: T } | { error: string };

const HAS_LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;

/** Trimmed; at least one letter or digit in any script ("Café 7", "日本商店"), so "!!!" or "   " fail. */
export function normalizeName(name: string): FieldResult<string> {
  const trimmed = name.trim();
  if (!HAS_LETTER_OR_DIGIT.test(trimmed)) return { error: 'must contain at least one letter or digit' };
  return { value: trimmed };
}

const PHONE_CHARACTERS = /^[0-9 ()\-./]+$/;
const TRUNK_ZERO = /\(0\)/g;

/**
 * Human formats → E.164. The number must carry its country code, written "+55 …" or "0055 …": we can't
 * guess the country of "(415) 555 0123", and guessing wrong would send money-related calls to a stranger.
 * Spaces, dashes, dots, slashes and parentheses are separators; a "(0)" trunk marker after the country
 * code ("+44 (0)20 …") is dropped. The result has 8–15 digits and doesn't start with 0.
 */
export function normalizePhone(input: string): FieldResult<string> {
  let rest = input.trim();
  if (rest.startsWith('+')) rest = rest.slice(1);
  else if (rest.startsWith('00')) rest = rest.slice(2);
  else return { error: 'must include the country code, starting with + or 00 (e.g. "+55 11 98765-4321")' };
  rest = rest.replace(TRUNK_ZERO, ' ');
  if (!PHONE_CHARACTERS.test(rest) || !balancedParentheses(rest)) {
    return { error: 'must be a phone number: digits with optional spaces, dashes, dots or parentheses' };
  }
  const digits = rest.replace(/[^0-9]/g, '');
  if (digits.length < 8 || digits.length > 15 || digits.startsWith('0')) {
    return { error: 'must have 8 to 15 digits including the country code, which does not start with 0' };
  }
  return { value: `+${digits}` };
}

function balancedParentheses(text: string): boolean {
  let open = false;
  for (const char of text) {
    if (char === '(') {
      if (open) return false;
      open = true;
    } else if (char === ')') {
      if (!open) return false;
      open = false;
    }
  }
  return !open;
}

/** An absolute http(s) URL with a dotted host name and no embedded credentials; stored as sent (trimmed). */
export function normalizeWebsite(input: string): FieldResult<string> {
  const trimmed = input.trim();
  let url: URL;
  try {
    url = new URL(trimmed);
  } catch {
    return { error: 'must be an absolute http or https URL' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { error: 'must be an http or https URL' };
  if (!url.hostname.includes('.') || /\s/.test(trimmed))
    return { error: 'must name a public host, e.g. https://shop.example.com' };
  if (url.username || url.password) return { error: 'must not contain credentials' };
  return { value: trimmed };
}

/** Always the same keys in the same order (line_2 null when absent or empty), so stored addresses compare by value. */
export function normalizeAddress(address: {
  line_1: string;
  line_2?: string | null;
  zip_code: string;
  city: string;
  state: string;
  country: string;
}): MerchantAddress {
  return {
    line_1: address.line_1,
    line_2: address.line_2 || null,
    zip_code: address.zip_code,
    city: address.city,
    state: address.state,
    country: address.country,
  };
}
