/**
 * A merchant whose card plan mixes live and test-mode connectors, created through the API: each connector an
 * action node in the given order (the last one the profile's default). A live connector's calls go to the
 * provider's live host, which does not resolve from a development machine: every call to it ends network_error
 * before anything is sent.
 */
import { expect } from 'chai';
import { api } from './http';
import { connectorBody, connectorsPath } from './connectors';
import type { Tenant } from './factories';
import type { CascadeConnector } from './transactions';

export interface ModeConnector extends CascadeConnector {
  live: boolean;
}

export interface ModeSpec {
  live: boolean;
  slug?: string;
  config?: Record<string, unknown>;
}

export async function modeCascade(
  tenant: Tenant,
  specs: ModeSpec[],
): Promise<{ profileId: string; connectors: ModeConnector[] }> {
  const key = tenant.merchant_secret_key;
  const connectors: ModeConnector[] = [];
  for (const [index, spec] of specs.entries()) {
    const slug = spec.slug ?? 'provider_a';
    const body = connectorBody(slug, {
      name: `${spec.live ? 'Live' : 'Test'} ${slug} #${index + 1}`,
      is_test_mode: !spec.live,
      ...(spec.config ? { config: spec.config } : {}),
    });
    const res = await api.post(connectorsPath(tenant.merchant_id), { key, body });
    expect(res.status, res.text).to.equal(201);
    connectors.push({
      id: res.body.id,
      slug,
      credentials: body.credentials,
      webhookUrl: res.body.webhook_url,
      webhookSecret: '',
      live: spec.live,
    });
  }
  const base = `/merchants/${tenant.merchant_id}/routing-profiles`;
  const last = connectors[connectors.length - 1];
  const profile = await api.post(base, {
    key,
    body: { name: 'Mixed modes', payment_method: '*', default_merchant_connector_id: last.id },
  });
  expect(profile.status, profile.text).to.equal(201);
  for (const [position, connector] of connectors.slice(0, -1).entries()) {
    const node = await api.post(`${base}/${profile.body.id}/nodes`, {
      key,
      body: { node_type: 'action', merchant_connector_id: connector.id, position },
    });
    expect(node.status, node.text).to.equal(201);
  }
  const activated = await api.patch(`${base}/${profile.body.id}`, { key, body: { is_active: true } });
  expect(activated.status, activated.text).to.equal(200);
  return { profileId: profile.body.id, connectors };
}

/** How routing planned a charge (GET /transactions/:id/routing). */
export async function routingOf(tenant: Tenant, transactionId: string): Promise<any> {
  const res = await api.get(`/transactions/${transactionId}/routing`, { key: tenant.merchant_secret_key });
  expect(res.status, res.text).to.equal(200);
  return res.body.data;
}
