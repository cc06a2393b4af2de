/**
 * provider_c authentication: an access token is used as is; OAuth client credentials are exchanged at /oauth/token
 * and the token cached (per base URL and client) until a minute before it expires. Secrets are never logged.
 */
import { createHash } from 'node:crypto';
import type { ProviderCall, ProviderResult } from '../connector';
import type { ProviderCCredentials } from '../credentials';
import { callProvider, field } from '../http';
import { fromTokenFailure } from './transformers';
import { TokenCache } from './token-cache';

/** One slot per OAuth client in use; far more than a worker's connectors, small enough to never matter for memory. */
export const TOKEN_CACHE_MAX_ENTRIES = 1000;
export const tokenCache = new TokenCache(TOKEN_CACHE_MAX_ENTRIES);

/** The bearer token, or the ProviderResult explaining why none could be obtained. */
export async function accessToken(
  call: Pick<ProviderCall, 'baseUrl' | 'timeoutMs' | 'credentials'>,
): Promise<{ token: string } | { failure: ProviderResult }> {
  const credentials = call.credentials as ProviderCCredentials;
  if ('access_token' in credentials) return { token: credentials.access_token };
  const slot = `${call.baseUrl}|${credentials.client_id}|${createHash('sha256').update(credentials.client_secret).digest('hex')}`;
  const cached = tokenCache.get(slot);
  if (cached) return { token: cached };
  const response = await callProvider(call, {
    method: 'POST',
    path: '/oauth/token',
    json: {
      grant_type: 'client_credentials',
      client_id: credentials.client_id,
      client_secret: credentials.client_secret,
    },
  });
  const token = field.str(response.body?.access_token);
  if (response.status !== 200 || !token) return { failure: fromTokenFailure(response) };
  const expiresIn = field.num(response.body?.expires_in) ?? 3600;
  tokenCache.set(slot, token, Date.now() + Math.max(0, expiresIn - 60) * 1000);
  return { token };
}
