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
  return browserAddressProblem(value, appEnv);
}

/** Why a buyer's browser may not be sent to this address (https, or http on loopback outside production). */
export function browserAddressProblem(value: string, appEnv: AppEnv): string | null {
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

/**
 * A return_url a browser names (the checkout confirm): the return endpoint redirects there without a key, so it may
 * only lead to the hosted checkout's own origin or to the merchant's website (its host or a subdomain of it, a
 * leading www. aside), besides a loopback shop outside production. Anything else would make Switchyard an open
 * redirect anyone with a checkout link could aim.
 */
export function browserReturnUrlProblem(
  value: string,
  paymentMethod: string,
  appEnv: AppEnv,
  allowed: { hostedOrigin: string; website: string | null },
): string | null {
  const problem = returnUrlProblem(value, paymentMethod, appEnv);
  if (problem) return problem;
  const url = new URL(value);
  if (url.origin === new URL(allowed.hostedOrigin).origin) return null;
  if (LOOPBACK.has(url.hostname) && appEnv !== 'production') return null;
  const site = websiteHost(allowed.website);
  if (site && (url.hostname === site || url.hostname.endsWith(`.${site}`))) return null;
  return site
    ? `must be on the merchant's website (${site}) or the hosted checkout`
    : 'must be on the hosted checkout (the merchant has no website to return to)';
}

function websiteHost(website: string | null): string | null {
  if (!website) return null;
  try {
    return new URL(website).hostname.replace(/^www\./, '');
  } catch {
    return null;
  }
}
