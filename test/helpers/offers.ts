/**
 * Helpers for the offer, offer-price and offer-transition API tests: products written straight to the
 * database (the products API has its own tests) and offers created through the API under test.
 */
import { expect } from 'chai';
import { ProductSchema, type Product } from '../../db/entities';
import { newId } from '../../domain/platform/ids';
import { createFamily } from './catalog';
import type { Tenant } from './factories';
import { api } from './http';
import { stack } from './stack';

export { createFamily };

let tier = 0;

/** A live recurring product of the merchant, in `familyId` (null = standalone). */
export async function createProduct(
  merchantId: string,
  familyId: string | null = null,
  overrides: Partial<Product> = {},
): Promise<Product> {
  const em = stack().orm.em.fork();
  tier += 1;
  const product = em.create(ProductSchema, {
    id: newId('prd'),
    merchantId,
    productFamilyId: familyId,
    name: `Plan ${tier}`,
    description: null,
    type: 'recurring',
    tierOrder: familyId ? tier : null,
    status: 'active',
    metadata: null,
    deletedAt: null,
    ...overrides,
  } as Product);
  await em.flush();
  return product;
}

/** A family product of the merchant (a new family unless one is given). */
export async function createFamilyProduct(merchantId: string, familyId?: string): Promise<Product> {
  return createProduct(merchantId, familyId ?? (await createFamily(merchantId)).id);
}

let slugCounter = 0;
export function uniqueOfferSlug(prefix = 'offer'): string {
  slugCounter += 1;
  return `${prefix}-${Date.now().toString(36)}-${slugCounter}`;
}

/** A valid POST /offers body: monthly, active, BRL 4990 (default) and USD 999. */
export function offerBody(productId: string, overrides: Record<string, unknown> = {}): Record<string, any> {
  return {
    product_id: productId,
    name: 'Pro monthly',
    slug: uniqueOfferSlug(),
    billing_cycle: 'monthly',
    status: 'active',
    prices: [
      { currency: 'BRL', amount: 4990, is_default: true },
      { currency: 'USD', amount: 999 },
    ],
    ...overrides,
  };
}

/** POST /offers with the tenant's merchant key; expects 201 and returns the offer (with prices). */
export async function postOffer(
  tenant: Tenant,
  productId: string,
  overrides: Record<string, unknown> = {},
): Promise<any> {
  const res = await api.post('/offers', { key: tenant.merchant_secret_key, body: offerBody(productId, overrides) });
  expect(res.status, res.text).to.equal(201);
  return res.body.data;
}

export async function postPrice(tenant: Tenant, offerId: string, body: Record<string, unknown>): Promise<any> {
  const res = await api.post(`/offers/${offerId}/prices`, { key: tenant.merchant_secret_key, body });
  expect(res.status, res.text).to.equal(201);
  return res.body.data;
}

export const OFFER_KEYS = [
  'id',
  'product_id',
  'name',
  'slug',
  'description',
  'billing_cycle',
  'custom_billing_days',
  'cycle_limit',
  'free_trial',
  'trial_days',
  'setup_charge',
  'renew_after_cycle_limit',
  'renewal_offer_id',
  'is_default',
  'status',
  'created_at',
  'updated_at',
];
export const PRICE_KEYS = [
  'id',
  'offer_id',
  'currency',
  'amount',
  'first_charge_amount',
  'is_default',
  'created_at',
  'updated_at',
];
export const TRANSITION_KEYS = [
  'id',
  'from_offer_id',
  'to_offer_id',
  'change_charge_behavior',
  'is_active',
  'created_at',
  'updated_at',
];

/** Raw rows, to check what a request did (or did not) change. */
import { rows } from './db';

export { rows };
