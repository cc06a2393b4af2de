/**
 * A card charge's return_url: where the buyer's browser lands after a 3-D Secure challenge, so it is a browser
 * address — https, or http on a loopback host outside production (a developer's local shop). Only card charges take
 * one: nothing else is challenged.
 */
import type { AppEnv } from '../../../domain/platform/config';

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/** Why the return_url cannot be used; null when it can. */
export function returnUrlProblem(value: string, paymentMethod: string, appEnv: AppEnv): string | null {
  if (paymentMethod !== 'credit_card' && paymentMethod !== 'debit_card')
    return 'is taken by card charges only (the 3-D Secure challenge returns there)';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an absolute URL';
  }
  if (url.username || url.password) return 'must not carry credentials';
  if (url.protocol === 'https:') return null;
  if (url.protocol === 'http:' && LOOPBACK.has(url.hostname) && appEnv !== 'production') return null;
  return appEnv === 'production' ? 'must be an https URL' : 'must be an https URL (or http on localhost)';
}
