/**
 * Routing test fixtures: connectors written straight to the database (the connectors API is another area's
 * subject) and profiles/nodes created through the routing API under test.
 */
import { expect } from 'chai';
import { createHash, randomBytes } from 'node:crypto';
import { MerchantConnectorSchema, type ConnectorConfig, type MerchantConnector } from '../../db/entities';
import { encryptSecret } from '../../domain/platform/crypto';
import { newId } from '../../domain/platform/ids';
import { api } from './http';
import { stack } from './stack';
import type { Tenant } from './factories';

export interface ConnectorFixture {
  providerSlug?: string;
  isActive?: boolean;
  config?: ConnectorConfig | null;
  name?: string;
}

/** A connector row with dummy encrypted credentials and a random webhook token (hash + ciphertext). */
export async function createConnector(merchantId: string, fixture: ConnectorFixture = {}): Promise<MerchantConnector> {
  const em = stack().orm.em.fork();
  const key = stack().config.encryptionKey;
  const token = randomBytes(24).toString('base64url');
  const slug = fixture.providerSlug ?? 'provider_a';
  const connector = em.create(MerchantConnectorSchema, {
    id: newId('conn'),
    merchantId,
    providerSlug: slug,
    name: fixture.name ?? `${slug} ${randomBytes(3).toString('hex')}`,
    countryCode: null,
    authMethod: 'api_key',
    isTestMode: true,
    isActive: fixture.isActive ?? true,
    credentialsEncrypted: encryptSecret(key, JSON.stringify({ secret_key: 'sk_test_dummy' })),
    webhookTokenEncrypted: encryptSecret(key, token),
    webhookTokenHash: createHash('sha256').update(token).digest('hex'),
    webhookSecretEncrypted: null,
    config: fixture.config ?? null,
  } as MerchantConnector);
  await em.flush();
  return connector;
}

import { rows as sql } from './db';

export { sql };

export const profilesPath = (merchantId: string) => `/merchants/${merchantId}/routing-profiles`;
export const profilePath = (merchantId: string, profileId: string) => `${profilesPath(merchantId)}/${profileId}`;
export const nodesPath = (merchantId: string, profileId: string) => `${profilePath(merchantId, profileId)}/nodes`;

export interface ProfileData {
  id: string;
  merchant_id: string;
  name: string;
  is_active: boolean;
  version: number;
  payment_method: string;
  default_merchant_connector_id: string;
  created_at: string;
  updated_at: string;
}

export async function createProfile(tenant: Tenant, body: Record<string, unknown> = {}): Promise<ProfileData> {
  const connectorId = body.default_merchant_connector_id ?? (await createConnector(tenant.merchant_id)).id;
  const res = await api.post(profilesPath(tenant.merchant_id), {
    key: tenant.merchant_secret_key,
    body: { name: 'Cards', default_merchant_connector_id: connectorId, ...body },
  });
  expect(res.status, res.text).to.equal(201);
  return res.body;
}

export async function getProfile(tenant: Tenant, profileId: string): Promise<ProfileData> {
  const res = await api.get(profilePath(tenant.merchant_id, profileId), { key: tenant.merchant_secret_key });
  expect(res.status, res.text).to.equal(200);
  return res.body;
}

export async function addNode(tenant: Tenant, profileId: string, body: Record<string, unknown>): Promise<any> {
  const res = await api.post(nodesPath(tenant.merchant_id, profileId), {
    key: tenant.merchant_secret_key,
    body: { position: 0, ...body },
  });
  expect(res.status, res.text).to.equal(201);
  return res.body;
}

export const action = (connectorId: string, extra: Record<string, unknown> = {}) => ({
  node_type: 'action',
  merchant_connector_id: connectorId,
  ...extra,
});
export const condition = (field: string, operator: string, value: unknown, extra: Record<string, unknown> = {}) => ({
  node_type: 'condition',
  condition_field: field,
  condition_operator: operator,
  condition_value: value,
  ...extra,
});

export async function listNodeIds(tenant: Tenant, profileId: string): Promise<string[]> {
  const res = await api.get(nodesPath(tenant.merchant_id, profileId), { key: tenant.merchant_secret_key });
  expect(res.status, res.text).to.equal(200);
  return res.body.data.map((node: { id: string }) => node.id);
}

export async function activities(
  merchantId: string,
  action: string,
): Promise<Array<{ action: string; actor_id: string; changes: any }>> {
  return sql(
    'select action, actor_id, changes from merchant_activities where merchant_id = ? and action = ? order by created_at, id',
    [merchantId, action],
  );
}
