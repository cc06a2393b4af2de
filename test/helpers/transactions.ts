/** Transaction fixtures: cascades of real test-mode connectors (known credentials), card tokens and a charge call. */
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { api, type ApiResponse } from './http';
import type { Tenant } from './factories';
import { connectorBody, connectorsPath, validWebhookSecret } from './connectors';
import { CARDS, mintToken, openSession, type CardInput } from './vault';
import { control } from './sandbox';

export interface CascadeConnector {
  id: string;
  slug: string;
  credentials: Record<string, string>;
  /** Where the sandbox delivers this connector's events, and the secret it signs them with. */
  webhookUrl: string;
  webhookSecret: string;
}

/**
 * Connectors in cascade order: an active catch-all profile whose action nodes are the first ones (positions
 * 0, 1 …) and whose default is the last, so the routing plan tries them exactly in the given order.
 */
export async function cascade(
  tenant: Tenant,
  slugs: string[] = ['provider_a'],
  options: { webhooks?: boolean } = {},
): Promise<CascadeConnector[]> {
  const connectors: CascadeConnector[] = [];
  for (const [index, slug] of slugs.entries()) {
    const secret = validWebhookSecret(slug);
    const body = connectorBody(slug, { name: `${slug} #${index + 1}`, webhook_secret: secret });
    // provider_b's account is the merchant account: a fresh one, so no other test's webhook endpoint shares it.
    if (slug === 'provider_b') body.credentials.merchant_account = `Acme${randomUUID().slice(0, 8)}`;
    const res = await api.post(connectorsPath(tenant.merchant_id), { key: tenant.merchant_secret_key, body });
    expect(res.status, res.text).to.equal(201);
    // The API registered the connector's webhook_url (PUBLIC_BASE_URL is this test API's address) at the sandbox.
    if (options.webhooks === false) await unregisterWebhooks(slug, body.credentials);
    connectors.push({
      id: res.body.id,
      slug,
      credentials: body.credentials,
      webhookUrl: res.body.webhook_url,
      webhookSecret: secret,
    });
  }
  const last = connectors[connectors.length - 1];
  const base = `/merchants/${tenant.merchant_id}/routing-profiles`;
  const profile = await api.post(base, {
    key: tenant.merchant_secret_key,
    body: { name: 'Cascade', payment_method: '*', default_merchant_connector_id: last.id },
  });
  expect(profile.status, profile.text).to.equal(201);
  for (const [position, connector] of connectors.slice(0, -1).entries()) {
    const node = await api.post(`${base}/${profile.body.id}/nodes`, {
      key: tenant.merchant_secret_key,
      body: { node_type: 'action', merchant_connector_id: connector.id, position },
    });
    expect(node.status, node.text).to.equal(201);
  }
  const activated = await api.patch(`${base}/${profile.body.id}`, {
    key: tenant.merchant_secret_key,
    body: { is_active: true },
  });
  expect(activated.status, activated.text).to.equal(200);
  return connectors;
}

/** Removes the sandbox's webhook endpoints for these credentials' account: only timers or polling settle its payments. */
async function unregisterWebhooks(slug: string, credentials: Record<string, string>): Promise<void> {
  const account = (await control('POST', '/accounts/resolve', { provider: slug, credentials })).body.account;
  const listed = await control(
    'GET',
    `/webhook-endpoints?${new URLSearchParams({ provider: slug, account }).toString()}`,
  );
  for (const endpoint of listed.body.data)
    expect((await control('DELETE', `/webhook-endpoints/${endpoint.id}`)).status).to.equal(204);
}

/** Makes a connector's next authorizations play `scenario` whatever the card (sandbox override by account). */
export async function override(connector: CascadeConnector, scenario: string, times?: number): Promise<void> {
  const res = await control('POST', '/overrides', {
    provider: connector.slug,
    credentials: connector.credentials,
    scenario,
    ...(times ? { times } : {}),
  });
  expect(res.status, JSON.stringify(res.body)).to.equal(201);
}

export async function cardToken(tenant: Tenant, card: CardInput & { brand?: string } = CARDS.visa): Promise<string> {
  const session = await openSession(tenant);
  return (await mintToken(tenant, session, card, { purpose: 'one_time' })).tokenId;
}

export function charge(
  tenant: Tenant,
  body: Record<string, unknown>,
  options: { key?: string; idempotencyKey?: string | null } = {},
): Promise<ApiResponse> {
  const headers: Record<string, string> =
    options.idempotencyKey === null ? {} : { 'idempotency-key': options.idempotencyKey ?? randomUUID() };
  return api.post('/transactions', { key: options.key ?? tenant.merchant_secret_key, headers, body });
}

export const cardCharge = (tokenId: string, extra: Record<string, unknown> = {}) => ({
  payment_method: 'credit_card',
  charge_type: 'payment',
  country: 'US',
  amount: 1500,
  currency: 'USD',
  card_ciphertext_id: tokenId,
  ...extra,
});

/** Polls GET /transactions/:id until `done` holds (webhooks and workflows finish asynchronously). */
export async function waitForTransaction(
  tenant: Tenant,
  id: string,
  done: (tx: any) => boolean,
  timeoutMs = 15_000,
): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await api.get(`/transactions/${id}`, { key: tenant.merchant_secret_key });
    if (done(res.body.data) || Date.now() > deadline) return res.body.data;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

export async function providerReferenceOf(tenant: Tenant, id: string): Promise<string> {
  const res = await api.get(`/transactions/${id}/attempts`, { key: tenant.merchant_secret_key });
  return res.body.data[res.body.data.length - 1].provider_reference;
}
