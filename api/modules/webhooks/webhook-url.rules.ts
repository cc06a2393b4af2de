/**
 * Which URLs a webhook configuration may hold. Always: an absolute http(s) URL, at most 2048 characters, no
 * user:password (it would be stored and echoed in plaintext), no fragment. Production: https only, and never a
 * loopback, private or link-local literal address or a localhost name (the delivery activity re-checks the
 * resolved address of every attempt). local/test mode: plain http is allowed, but only to loopback.
 */
import type { AppEnv } from '../../../domain/platform/config';
import { errors } from '../../../domain/platform/errors';
import {
  bareHost,
  isBlockedAddress,
  isLocalHostname,
  isLoopbackHost,
} from '../../../domain/webhooks/webhooks.outbound';

export const MAX_URL_LENGTH = 2048;

function problemWith(raw: string, env: AppEnv): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'must be an absolute URL';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'must use https';
  if (!url.hostname) return 'must name a host';
  if (url.username || url.password) return 'must not contain credentials (user:password@)';
  if (url.hash) return 'must not contain a fragment (#…)';
  const relaxed = env === 'local' || env === 'test';
  if (url.protocol === 'http:' && !(relaxed && isLoopbackHost(url.hostname))) {
    return relaxed
      ? 'must use https (plain http is only accepted for loopback addresses in local/test mode)'
      : 'must use https';
  }
  if (!relaxed && (isLocalHostname(url.hostname) || isBlockedAddress(bareHost(url.hostname)))) {
    return 'must not point to a loopback, private, link-local or reserved address';
  }
  return null;
}

/** Throws 400 INVALID_VALUE naming `url` when the URL may not be used. */
export function assertWebhookUrl(raw: string, env: AppEnv): void {
  const problem = problemWith(raw, env);
  if (problem) throw errors.invalidValue('url', problem);
}
