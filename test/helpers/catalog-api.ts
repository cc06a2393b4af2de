/** Product families and products created through the API, for the catalog endpoint tests. */
import { api } from './http';
import { expectWrapped } from './envelope';
import type { Tenant } from './factories';

export interface ProductData {
  id: string;
  name: string;
  product_family_id: string | null;
  tier_order: number | null;
  status: string;
  created_at: string;
  updated_at: string;
  metadata: Record<string, unknown> | null;
}

let counter = 0;
export const uniqueFamilySlug = (prefix = 'family') => `${prefix}-${Date.now()}-${++counter}`;

export async function createFamilyViaApi(tenant: Tenant, overrides: Record<string, unknown> = {}) {
  const res = await api.post('/product-families', {
    key: tenant.merchant_secret_key,
    body: { name: 'Plans', slug: uniqueFamilySlug(), ...overrides },
  });
  return expectWrapped(res, 201) as { id: string; slug: string; custom_plan_id: string | null; name: string };
}

export async function createProductViaApi(
  tenant: Tenant,
  overrides: Record<string, unknown> = {},
): Promise<ProductData> {
  const res = await api.post('/products', {
    key: tenant.merchant_secret_key,
    body: { name: 'Basic', type: 'recurring', status: 'active', ...overrides },
  });
  return expectWrapped(res, 201);
}
