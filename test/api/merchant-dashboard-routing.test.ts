/**
 * The merchant Dashboard manages connectors and routing: an admin edits, deactivates and deletes a
 * connector and edits a routing tree (add, reorder, remove, default connector) and simulates a charge at
 * /merchant/…; a viewer reads but is refused every change (403); every change names the person in the activity
 * log; another merchant's profile does not exist (404).
 */
import { expect } from 'chai';
import { api } from '../helpers/http';
import { createTenant, type Tenant } from '../helpers/factories';
import { expectError } from '../helpers/envelope';
import { bearer, createMerchantUser, signIn } from '../helpers/dashboard';
import { activityOf } from '../helpers/merchants';
import { postConnector } from '../helpers/connectors';

async function session(tenant: Tenant, role: 'owner' | 'admin' | 'viewer') {
  const user = await createMerchantUser(tenant.organization_id, [tenant.merchant_id], { role });
  const { access_token: token } = await signIn('merchant', user);
  return bearer(token as string, { 'x-merchant-id': tenant.merchant_id });
}

describe('Merchant Dashboard: connectors and routing', function () {
  this.timeout(60_000);
  let tenant: Tenant;
  let admin: Record<string, string>;
  let viewer: Record<string, string>;
  before(async () => {
    tenant = await createTenant();
    admin = await session(tenant, 'admin');
    viewer = await session(tenant, 'viewer');
  });

  it('an admin renames, deactivates and deletes a connector; a connector routing uses is refused with CONNECTOR_IN_USE', async () => {
    const used = await postConnector(tenant, 'provider_a', { name: 'Used' });
    const spare = await postConnector(tenant, 'provider_b', { name: 'Spare' });
    await api.post('/merchant/routing-profiles', {
      headers: admin,
      body: { name: 'Cards', payment_method: 'credit_card', default_merchant_connector_id: used.id },
    });

    const edited = await api.patch(`/merchant/connectors/${spare.id}`, {
      headers: admin,
      body: { name: 'Spare (old account)', is_active: false },
    });
    expect(edited.status, edited.text).to.equal(200);
    expect(edited.body).to.include({ name: 'Spare (old account)', is_active: false, has_webhook_secret: false });
    expectError(
      await api.patch(`/merchant/connectors/${spare.id}`, { headers: viewer, body: { is_active: true } }),
      403,
    );
    expectError(
      await api.delete(`/merchant/connectors/${used.id}`, { headers: admin }),
      400,
      undefined,
      'CONNECTOR_IN_USE',
    );
    expectError(await api.delete(`/merchant/connectors/${spare.id}`, { headers: viewer }), 403);
    expect((await api.delete(`/merchant/connectors/${spare.id}`, { headers: admin })).status).to.equal(204);
    expect((await api.get(`/merchant/connectors/${spare.id}`, { headers: admin })).status).to.equal(404);

    const actions = (await activityOf(tenant.merchant_id))
      .filter((row) => row.action === 'connector.updated' || row.action === 'connector.deleted')
      .map((row) => [row.action, row.actor_type]);
    expect(actions).to.deep.equal([
      ['connector.updated', 'dashboard_user'],
      ['connector.deleted', 'dashboard_user'],
    ]);
  });

  it('an admin edits a routing tree and simulates a charge; a viewer reads and simulates it but cannot change it', async () => {
    const a = await postConnector(tenant, 'provider_a', { name: 'Alpha' });
    const b = await postConnector(tenant, 'provider_b', { name: 'Bravo' });
    const c = await postConnector(tenant, 'provider_c', { name: 'Charlie' });
    const created = await api.post('/merchant/routing-profiles', {
      headers: admin,
      body: { name: 'Everything', payment_method: '*', default_merchant_connector_id: c.id },
    });
    expect(created.status, created.text).to.equal(201);
    const profileId = created.body.id;
    const base = `/merchant/routing-profiles/${profileId}`;
    const add = async (connectorId: string, position: number) => {
      const res = await api.post(`${base}/nodes`, {
        headers: admin,
        body: { node_type: 'action', position, merchant_connector_id: connectorId },
      });
      expect(res.status, res.text).to.equal(201);
      return res.body.id as string;
    };
    const first = await add(a.id, 0);
    const second = await add(b.id, 1);
    const reordered = await api.patch(`${base}/nodes/reorder`, {
      headers: admin,
      body: { parent_node_id: null, ordered_node_ids: [second, first] },
    });
    expect(reordered.status, reordered.text).to.equal(200);

    const simulate = (headers: Record<string, string>, body: Record<string, unknown>) =>
      api.post(`${base}/simulate`, { headers, body });
    const card = await simulate(admin, {
      payment_method: 'credit_card',
      currency: 'BRL',
      amount: 1000,
      card_brand: 'visa',
    });
    expect(card.status, card.text).to.equal(200);
    expect(card.body.plan.map((p: any) => p.connector_name)).to.deep.equal(['Bravo', 'Alpha', 'Charlie']);
    // Simulating changes nothing, so a viewer may run it too (only the changes are an owner's or admin's).
    const viewed = await simulate(viewer, {
      payment_method: 'credit_card',
      currency: 'BRL',
      amount: 1000,
      card_brand: 'visa',
    });
    expect(viewed.status, viewed.text).to.equal(200);
    expect(viewed.body.plan).to.deep.equal(card.body.plan);
    const pix = await simulate(admin, { payment_method: 'pix', currency: 'BRL', amount: 1000 });
    expect(pix.body.plan.map((p: any) => p.connector_name)).to.deep.equal(['Bravo', 'Charlie']);
    expect(pix.body.skipped).to.deep.equal([
      { merchant_connector_id: a.id, node_id: first, reason: 'unsupported_payment_method' },
    ]);

    expectError(await api.delete(`${base}/nodes/${first}`, { headers: viewer }), 403);
    expect((await api.delete(`${base}/nodes/${first}`, { headers: admin })).status).to.equal(204);
    const defaulted = await api.patch(`${base}/default-connector`, {
      headers: admin,
      body: { merchant_connector_id: a.id },
    });
    expect(defaulted.status, defaulted.text).to.equal(200);
    const nodes = await api.get(`${base}/nodes`, { headers: viewer });
    expect(nodes.body.data.map((n: any) => n.connector_name)).to.deep.equal(['Bravo']);

    const routingActions = (await activityOf(tenant.merchant_id))
      .filter((row) => row.action.startsWith('routing_'))
      .map((row) => row.actor_type);
    expect(routingActions).to.have.length.greaterThan(3);
    expect(new Set(routingActions)).to.deep.equal(new Set(['dashboard_user']));
  });

  it("another merchant's profile does not exist; the checkout methods are readable by every role", async () => {
    const other = await createTenant();
    const theirs = await postConnector(other, 'provider_a');
    const profile = await api.post(`/merchants/${other.merchant_id}/routing-profiles`, {
      key: other.merchant_secret_key,
      body: { name: 'Theirs', default_merchant_connector_id: theirs.id },
    });
    expectError(await api.get(`/merchant/routing-profiles/${profile.body.id}`, { headers: admin }), 404);
    const methods = await api.get('/merchant/checkout-methods?currency=BRL', { headers: viewer });
    expect(methods.status, methods.text).to.equal(200);
    expect(methods.body.currency).to.equal('BRL');
    expect(methods.body.methods.map((m: any) => m.payment_method)).to.deep.equal([
      'credit_card',
      'pix',
      'boleto',
      'wallet',
    ]);
  });
});
