/**
 * Merchant status (Document 3: active; inactive = deactivated, records kept; suspended = temporarily blocked) is
 * enforced where money can move: a non-active merchant's public key is refused outright (browser sessions, card
 * tokens, hosted checkout), and its secret-key and Dashboard writes are refused, while reads stay open so the
 * merchant can still reconcile. The organization manages the merchant (PATCH /merchants/:id reactivates it) through
 * routes that are not merchant-scoped, so they are untouched. Webhook deliveries run in the worker and go on.
 *
 * The status is cached with the API keys: the merchants NOTIFY trigger empties the cache on every change, so a
 * suspension takes effect at once in every API process.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { MerchantSchema, type MerchantStatus } from '../../db/entities';
import { ApiError } from '../../domain/platform/errors';
import type { AuthCache } from './auth-cache';

const REFUSALS: Record<Exclude<MerchantStatus, 'active'>, { code: string; message: string }> = {
  suspended: {
    code: 'MERCHANT_SUSPENDED',
    message:
      'This merchant is suspended: it cannot take payments or make changes until its organization reactivates it',
  },
  inactive: {
    code: 'MERCHANT_INACTIVE',
    message: 'This merchant is inactive: it cannot take payments or make changes until its organization reactivates it',
  },
};

const statusKey = (merchantId: string) => `merchant-status:${merchantId}`;

/**
 * Caches a status read with something else (a merchant key with its merchant, an organization key's merchant with
 * its ownership), so the request that read it sends no second statement. `ticket` is the one taken before that read.
 */
export function cacheMerchantStatus(cache: AuthCache, merchantId: string, status: MerchantStatus, ticket: number) {
  cache.set(statusKey(merchantId), status, ticket);
}

export async function merchantStatus(
  em: EntityManager,
  merchantId: string,
  cache?: AuthCache,
): Promise<MerchantStatus | undefined> {
  const cached = cache?.get<MerchantStatus>(statusKey(merchantId));
  if (cached) return cached;
  const ticket = cache?.ticket() ?? 0;
  const merchant = await em.findOne(MerchantSchema, { id: merchantId }, { fields: ['status'] });
  if (!merchant) return undefined;
  if (cache) cacheMerchantStatus(cache, merchantId, merchant.status, ticket);
  return merchant.status;
}

/** 403 MERCHANT_SUSPENDED or MERCHANT_INACTIVE unless the merchant is active. */
export async function requireActiveMerchant(em: EntityManager, merchantId: string, cache?: AuthCache): Promise<void> {
  const status = await merchantStatus(em, merchantId, cache);
  if (status === undefined || status === 'active') return;
  const refusal = REFUSALS[status];
  throw new ApiError(403, 'authorization_error', refusal.code, refusal.message, { merchant_status: status });
}
