/** Each test builds its own organization and merchant, so tests never depend on each other. */
import { randomUUID } from 'node:crypto';
import { bootstrapTenant, type BootstrapResult } from '../../domain/tenants/tenants.bootstrap';
import { issueApiKey } from '../../domain/api-keys/api-keys.service';
import type { Scope } from '../../domain/api-keys/api-keys.scopes';
import { MerchantSchema, type Merchant } from '../../db/entities';
import { newId } from '../../domain/platform/ids';
import { uniqueSlug } from '../../domain/platform/slug';
import { api } from './http';
import { stack } from './stack';

export type Tenant = BootstrapResult;

export async function createTenant(): Promise<Tenant> {
  const suffix = randomUUID().slice(0, 8);
  return bootstrapTenant(stack().orm.em.fork(), {
    organizationName: `Org ${suffix}`,
    merchantName: `Merchant ${suffix}`,
  });
}

/** The merchant's website, which 3-D Secure needs before any challenge (the issuer's own included). */
export async function giveWebsite(tenant: Tenant, website = 'https://shop.example.com'): Promise<void> {
  const res = await api.patch(`/merchants/${tenant.merchant_id}`, {
    key: tenant.organization_secret_key,
    body: { website },
  });
  if (res.status !== 200) throw new Error(`PATCH website → ${res.status}: ${res.text}`);
}

/** A second merchant in the same organization, with its own merchant secret key. */
export async function addMerchant(tenant: Tenant): Promise<{ merchantId: string; merchantKey: string }> {
  const em = stack().orm.em.fork();
  const merchant = em.create(MerchantSchema, {
    id: newId('mrc'),
    organizationId: tenant.organization_id,
    name: 'Second merchant',
    slug: uniqueSlug('second'),
    status: 'active',
    networkEnrolled: false,
  } as Merchant);
  await em.flush();
  const { key } = await issueApiKey(em, {
    organizationId: tenant.organization_id,
    merchantId: merchant.id,
    kind: 'secret',
  });
  return { merchantId: merchant.id, merchantKey: key };
}

export async function keyWithScopes(
  tenant: Tenant,
  scopes: Scope[],
  level: 'merchant' | 'organization' = 'merchant',
): Promise<string> {
  const { key } = await issueApiKey(stack().orm.em.fork(), {
    organizationId: tenant.organization_id,
    merchantId: level === 'merchant' ? tenant.merchant_id : undefined,
    kind: 'secret',
    scopes,
  });
  return key;
}

let counter = 0;
export function uniqueEmail(prefix = 'buyer'): string {
  counter += 1;
  return `${prefix}.${Date.now()}.${counter}@example.com`;
}

export function customerInput(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    email: uniqueEmail(),
    name: 'Ada Lovelace',
    phone: '+5511987654321',
    document_type: 'cpf',
    document_number: '12345678909',
    billing_address: { line_1: 'Rua A, 1', zip_code: '01000-000', city: 'São Paulo', state: 'SP', country: 'BR' },
    metadata: { plan: 'gold' },
    ...overrides,
  };
}
