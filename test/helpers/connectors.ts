/** Connector fixtures: valid credentials and webhook secrets per provider, a create helper, raw routing rows. */
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { RoutingNodeSchema, RoutingProfileSchema, type RoutingNode, type RoutingProfile } from '../../db/entities';
import { newId } from '../../domain/platform/ids';
import { api } from './http';
import { stack } from './stack';
import type { Tenant } from './factories';

/** Distinctive values, so a test can grep responses, logs and rows for them. */
export function validCredentials(slug: string, authMethod = 'api_key'): Record<string, string> {
  const tag = randomBytes(6).toString('hex');
  switch (slug) {
    case 'provider_a':
      return { secret_key: `sk_test_PlainA${tag}` };
    case 'provider_b':
      return { username: `ws_user_${tag}`, password: `PlainPassB${tag}`, merchant_account: 'AcmeStoreBR' };
    case 'provider_c':
      return authMethod === 'oauth2'
        ? { client_id: `client${tag}`, client_secret: `PlainClientSecretC${tag}` }
        : { access_token: `APP_USR-PlainC${tag}` };
    case 'provider_d':
      return { api_login_id: `login${tag}`, transaction_key: `PlainTxKeyD${tag}` };
    case 'checkout':
      return { secret_key: `sk_sbox_PlainCko${tag}`, processing_channel_id: `pc_${tag}` };
    default:
      return { client_id: `client${tag}`, client_secret: `PlainSecretE${tag}` };
  }
}

export function validWebhookSecret(slug: string): string {
  switch (slug) {
    case 'provider_a':
      return `whsec_${randomBytes(24).toString('base64')}`;
    case 'provider_b':
      return JSON.stringify({ username: 'hook-user', password: `HookPass${randomBytes(6).toString('hex')}` });
    case 'provider_d':
      return randomBytes(64).toString('hex');
    default:
      return `hooksecret-${randomBytes(8).toString('hex')}`;
  }
}

export const ACTIVE_SLUGS = ['checkout', 'provider_a', 'provider_b', 'provider_c', 'provider_d'];

export const CONNECTOR_KEYS = [
  'id',
  'merchant_id',
  'provider_slug',
  'name',
  'country_code',
  'auth_method',
  'is_test_mode',
  'is_active',
  'created_at',
  'updated_at',
  'webhook_url',
  'has_webhook_secret',
  'config',
  'health',
];

export function connectorBody(slug = 'provider_a', overrides: Record<string, unknown> = {}): Record<string, any> {
  const authMethod = (overrides.auth_method as string | undefined) ?? 'api_key';
  return {
    provider_slug: slug,
    name: `${slug} main`,
    is_test_mode: true,
    auth_method: authMethod,
    credentials: validCredentials(slug, authMethod),
    ...overrides,
  };
}

/**
 * A connector as a response shows it, without what depends on the moment of the read: its health window starts 15
 * minutes before each read (`health.window.since`). Two reads of an unchanged connector compare equal through this.
 */
export function withoutReadTime(connector: any): any {
  return { ...connector, health: { ...connector.health, window: { ...connector.health?.window, since: null } } };
}

export const connectorsPath = (merchantId: string) => `/merchants/${merchantId}/connectors`;

export async function postConnector(
  tenant: Tenant,
  slug = 'provider_a',
  overrides: Record<string, unknown> = {},
): Promise<any> {
  const res = await api.post(connectorsPath(tenant.merchant_id), {
    key: tenant.merchant_secret_key,
    body: connectorBody(slug, overrides),
  });
  expect(res.status, res.text).to.equal(201);
  return res.body;
}

import { rows } from './db';

export { rows };

/** Routing rows written straight to the database: the routing API is another area's subject. */
export async function insertRoutingProfile(merchantId: string, defaultConnectorId: string): Promise<RoutingProfile> {
  const em = stack().orm.em.fork();
  const profile = em.create(RoutingProfileSchema, {
    id: newId('rp'),
    merchantId,
    name: 'Cards',
    isActive: false,
    version: 1,
    paymentMethod: '*',
    defaultMerchantConnectorId: defaultConnectorId,
  } as RoutingProfile);
  await em.flush();
  return profile;
}

export async function insertActionNode(profileId: string, connectorId: string): Promise<RoutingNode> {
  const em = stack().orm.em.fork();
  const node = em.create(RoutingNodeSchema, {
    id: newId('rn'),
    routingProfileId: profileId,
    parentNodeId: null,
    branch: null,
    position: 0,
    nodeType: 'action',
    conditionField: null,
    conditionOperator: null,
    conditionValue: null,
    merchantConnectorId: connectorId,
    require3ds: 'never',
    isActive: true,
  } as RoutingNode);
  await em.flush();
  return node;
}
