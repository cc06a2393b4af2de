/**
 * Rule: rolling an API key changes the secret only. The new key keeps the old one's expiry and scopes, so a
 * short-lived or narrowed key does not become a permanent or wider one through a routine rotation.
 */
import { expect } from 'chai';
import { api } from '../helpers/http';
import { createTenant, customerInput, type Tenant } from '../helpers/factories';
import { expectError } from '../helpers/envelope';

const keysPath = (tenant: Tenant) => `/merchants/${tenant.merchant_id}/api-keys`;

describe('Rule: a rolled API key keeps its expiry and scopes', () => {
  let tenant: Tenant;
  beforeEach(async () => {
    tenant = await createTenant();
  });

  async function issue(body: Record<string, unknown>) {
    const res = await api.post(keysPath(tenant), { key: tenant.organization_secret_key, body });
    expect(res.status, res.text).to.equal(201);
    return res.body;
  }

  async function roll(id: string, overlapHours: number) {
    const res = await api.post(`${keysPath(tenant)}/${id}/roll`, {
      key: tenant.organization_secret_key,
      body: { expires_in_hours: overlapHours },
    });
    expect(res.status, res.text).to.equal(201);
    return res.body;
  }

  it('a key that expires in 2 hours, rolled with a 1-hour overlap: the new key expires when the old one would have, with the same scopes', async () => {
    const created = await issue({
      name: 'Short-lived',
      kind: 'secret',
      scopes: ['customers:read'],
      expires_in_hours: 2,
    });
    expect(created.expires_at).to.be.a('string');
    const rolled = await roll(created.id, 1);
    expect(rolled).to.include({ expires_at: created.expires_at, name: 'Short-lived' });
    expect(rolled.scopes).to.deep.equal(['customers:read']);
    expect((await api.get('/customers', { key: rolled.key })).status).to.equal(200);
    expectError(
      await api.post('/customers', { key: rolled.key, body: customerInput() }),
      403,
      'authorization_error',
      'INSUFFICIENT_PERMISSIONS',
    );
    // Rolled again, still the same expiry: rotation never extends a key's life.
    expect(await roll(rolled.id, 0)).to.include({ expires_at: created.expires_at });
  });

  it('an overlap longer than the key has left ends the old key at its own expiry, and the new one expires then too', async () => {
    const created = await issue({ name: 'Hour', kind: 'secret', expires_in_hours: 1 });
    const rolled = await roll(created.id, 24);
    expect(rolled.expires_at).to.equal(created.expires_at);
    const list = await api.get(keysPath(tenant), { key: tenant.organization_secret_key });
    expect(list.body.data.find((k: any) => k.id === created.id).expires_at).to.equal(created.expires_at);
  });

  it('a key without an expiry rolls into a key without one', async () => {
    const created = await issue({ name: 'Server', kind: 'secret' });
    expect(created.expires_at).to.equal(null);
    expect((await roll(created.id, 1)).expires_at).to.equal(null);
  });
});
