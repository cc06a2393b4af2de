/** Helpers for the merchant management tests: bodies, creation through the API, and direct database access. */
import { expect } from 'chai';
import { hashSecret } from '../../domain/platform/crypto';
import type { Tenant } from './factories';
import { api } from './http';

export const MERCHANT_KEYS = [
  'address',
  'business_registration_number',
  'created_at',
  'external_reference',
  'id',
  'mcc',
  'name',
  'organization_id',
  'phone_number',
  'slug',
  'status',
  'updated_at',
  'website',
];
export const RECEIPT_KEYS = ['created_at', 'external_reference', 'id', 'name', 'organization_id', 'slug', 'status'];
export const MEMBER_KEYS = [
  'email',
  'invitation_expires_at',
  'joined_at',
  'membership_id',
  'name',
  'role',
  'status',
  'user_id',
];
export const ACTIVITY_KEYS = ['action', 'actor', 'changes', 'created_at', 'id', 'merchant_id'];

let counter = 0;
/** Unique per run, so generated slugs and e-mails never collide between tests. */
export function unique(prefix: string): string {
  counter += 1;
  return `${prefix}-${Date.now().toString(36)}-${counter}`;
}

export const ADDRESS = {
  line_1: 'Av. Paulista, 1000',
  zip_code: '01310-100',
  city: 'São Paulo',
  state: 'SP',
  country: 'BR',
};

/** A complete POST /merchants body. */
export function merchantBody(overrides: Record<string, unknown> = {}): Record<string, any> {
  const name = unique('Shop');
  return {
    name,
    primary_email: `${unique('owner')}@example.com`,
    primary_name: 'Olivia Owner',
    external_reference: unique('ext'),
    business_registration_number: '12.345.678/0001-90',
    mcc: '5734',
    website: 'https://shop.example.com',
    phone_number: '+55 (11) 98765-4321',
    address: ADDRESS,
    ...overrides,
  };
}

/** Creates a merchant through the API with the tenant's organization key; returns the receipt. */
export async function createMerchant(
  tenant: Tenant,
  overrides: Record<string, unknown> = {},
  key = tenant.organization_secret_key,
): Promise<any> {
  const res = await api.post('/merchants', { key, body: merchantBody(overrides) });
  expect(res.status, res.text).to.equal(201);
  return res.body;
}

import { rows } from './db';

export { rows };

/** The ak_ id of an API key, as activity records name it. */
export async function keyId(key: string): Promise<string> {
  const [row] = await rows('select id from api_keys where secret_hash = ?', [hashSecret(key)]);
  return row.id;
}

export async function setEnrolled(merchantId: string, enrolled = true): Promise<void> {
  await rows('update merchants set network_enrolled = ? where id = ?', [enrolled, merchantId]);
}

export async function activityOf(merchantId: string): Promise<any[]> {
  return rows('select * from merchant_activities where merchant_id = ? order by created_at, id', [merchantId]);
}
