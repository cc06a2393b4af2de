/** PATCH/DELETE webhook configurations and POST .../webhooks/:webhook_id/rotate-secret (Document 1). */
import { expect } from 'chai';
import { api } from '../helpers/http';
import { addMerchant, createTenant, keyWithScopes, type Tenant } from '../helpers/factories';
import { expectError, expectFieldErrors } from '../helpers/envelope';
import { CONFIG_KEYS, configsPath, createConfig } from '../helpers/webhooks';
import { stack } from '../helpers/stack';

const URL_OK = 'https://hooks.example.com/switchyard';

async function activities(merchantId: string) {
  return stack()
    .orm.em.fork()
    .execute<{ action: string; actor_type: string; changes: Record<string, any> }[]>(
      'select action, actor_type, changes from merchant_activities where merchant_id = ? order by created_at, id',
      [merchantId],
    );
}

describe('PATCH /api/v1/merchants/:merchant_id/webhook-configs/:webhook_id', () => {
  let tenant: Tenant;
  let config: Record<string, any>;
  beforeEach(async () => {
    tenant = await createTenant();
    config = await createConfig(tenant, { url: URL_OK, description: 'first', event_filter: ['transaction.created'] });
  });
  const patch = (body: unknown, key = tenant.merchant_secret_key, merchantId = tenant.merchant_id, id = config.id) =>
    api.patch(`${configsPath(merchantId)}/${id}`, { key, body });

  it('changes url, description and event_filter; unsent fields stay; updated_at moves', async () => {
    const res = await patch({ url: `${URL_OK}/v2`, event_filter: ['transaction.authorized', 'transaction.failed'] });
    expect(res.status, res.text).to.equal(200);
    expect(Object.keys(res.body)).to.deep.equal(CONFIG_KEYS);
    expect(res.body).to.include({ url: `${URL_OK}/v2`, description: 'first', is_active: true });
    expect(res.body.event_filter).to.deep.equal(['transaction.authorized', 'transaction.failed']);
    expect(Date.parse(res.body.updated_at)).to.be.at.least(Date.parse(config.updated_at));
    expect(res.body.created_at).to.equal(config.created_at);
  });

  it('clears description and event_filter with null (null filter = every event)', async () => {
    const res = await patch({ description: null, event_filter: null });
    expect(res.body).to.include({ description: null, event_filter: null });
  });

  it('toggles is_active false then true (the two documented state moves)', async () => {
    expect((await patch({ is_active: false })).body.is_active).to.equal(false);
    const read = await api.get(`${configsPath(tenant.merchant_id)}/${config.id}`, { key: tenant.merchant_secret_key });
    expect(read.body.is_active).to.equal(false);
    expect((await patch({ is_active: true })).body.is_active).to.equal(true);
  });

  it('refuses a bad url or filter with 400 and changes nothing', async () => {
    expectFieldErrors(await patch({ url: 'http://hooks.example.com', description: 'changed' }), ['url']);
    expectFieldErrors(await patch({ event_filter: [] }), ['event_filter']);
    expectFieldErrors(await patch({ event_filter: ['nope'] }), ['event_filter.0']);
    expectFieldErrors(await patch({ is_active: 'yes' }), ['is_active']);
    expectFieldErrors(await patch({ secret: 'whsec_x' }), ['secret']);
    const read = await api.get(`${configsPath(tenant.merchant_id)}/${config.id}`, { key: tenant.merchant_secret_key });
    const { secret: _secret, ...unchanged } = config;
    expect(read.body).to.deep.equal(unchanged);
  });

  it('records webhook_config.updated with exactly the fields that changed', async () => {
    await patch({ description: 'second', is_active: false, url: URL_OK });
    const [, updated] = await activities(tenant.merchant_id);
    expect(updated.action).to.equal('webhook_config.updated');
    expect(updated.changes).to.deep.equal({
      webhook_id: config.id,
      description: { from: 'first', to: 'second' },
      is_active: { from: true, to: false },
    });
  });

  it("is 404 for another merchant's configuration; 403 without webhooks:write", async () => {
    const second = await addMerchant(tenant);
    expectError(
      await patch({ is_active: false }, tenant.organization_secret_key, second.merchantId),
      404,
      'not_found_error',
    );
    expectError(
      await patch({ is_active: false }, await keyWithScopes(tenant, ['webhooks:read'])),
      403,
      'authorization_error',
    );
    expectError(
      await patch({ is_active: false }, tenant.merchant_secret_key, tenant.merchant_id, 'whc_unknown00000000000000'),
      404,
      'not_found_error',
    );
  });
});

describe('DELETE /api/v1/merchants/:merchant_id/webhook-configs/:webhook_id', () => {
  let tenant: Tenant;
  beforeEach(async () => {
    tenant = await createTenant();
  });

  it('answers 204 with no body; the configuration is gone and the deletion is in the activity log', async () => {
    const config = await createConfig(tenant, { url: URL_OK });
    const res = await api.delete(`${configsPath(tenant.merchant_id)}/${config.id}`, {
      key: tenant.organization_secret_key,
    });
    expect(res.status).to.equal(204);
    expect(res.text).to.equal('');
    expectError(
      await api.get(`${configsPath(tenant.merchant_id)}/${config.id}`, { key: tenant.merchant_secret_key }),
      404,
    );
    expect((await activities(tenant.merchant_id)).map((a) => a.action)).to.deep.equal([
      'webhook_config.created',
      'webhook_config.deleted',
    ]);
    expectError(
      await api.delete(`${configsPath(tenant.merchant_id)}/${config.id}`, { key: tenant.merchant_secret_key }),
      404,
    );
  });

  it("is 404 for another merchant's configuration, 403 without webhooks:write, 400 with a body", async () => {
    const config = await createConfig(tenant, { url: URL_OK });
    const second = await addMerchant(tenant);
    expectError(
      await api.delete(`${configsPath(second.merchantId)}/${config.id}`, { key: second.merchantKey }),
      404,
      'not_found_error',
    );
    expectError(
      await api.delete(`${configsPath(tenant.merchant_id)}/${config.id}`, {
        key: await keyWithScopes(tenant, ['webhooks:read']),
      }),
      403,
    );
    expectError(
      await api.delete(`${configsPath(tenant.merchant_id)}/${config.id}`, {
        key: tenant.merchant_secret_key,
        body: { force: true },
      }),
      400,
      'validation_error',
    );
    expect(
      (await api.get(`${configsPath(tenant.merchant_id)}/${config.id}`, { key: tenant.merchant_secret_key })).status,
    ).to.equal(200);
  });
});

describe('POST /api/v1/merchants/:merchant_id/webhooks/:webhook_id/rotate-secret', () => {
  let tenant: Tenant;
  beforeEach(async () => {
    tenant = await createTenant();
  });
  const rotate = (id: string, key = tenant.merchant_secret_key, merchantId = tenant.merchant_id) =>
    api.post(`/merchants/${merchantId}/webhooks/${id}/rotate-secret`, { key });

  it('returns 200 with the configuration and a new secret; reads never show either secret', async () => {
    const config = await createConfig(tenant, { url: URL_OK });
    const res = await rotate(config.id);
    expect(res.status, res.text).to.equal(200);
    expect(Object.keys(res.body)).to.deep.equal([...CONFIG_KEYS, 'secret']);
    expect(res.body.id).to.equal(config.id);
    expect(res.body.secret)
      .to.match(/^whsec_/)
      .and.not.equal(config.secret);
    expect(Buffer.from(res.body.secret.slice(6), 'base64')).to.have.length(32);
    const read = await api.get(`${configsPath(tenant.merchant_id)}/${config.id}`, { key: tenant.merchant_secret_key });
    expect(read.text).not.to.include(res.body.secret).and.not.to.include(config.secret);
  });

  it('keeps no copy of the replaced secret (it stops being valid), and logs the rotation without either value', async () => {
    const config = await createConfig(tenant, { url: URL_OK });
    const rotated = (await rotate(config.id)).body;
    const [row] = await stack()
      .orm.em.fork()
      .execute<Record<string, any>[]>('select * from merchant_webhook_configs where id = ?', [config.id]);
    expect(row.previous_secret_encrypted).to.equal(null);
    expect(row.previous_secret_expires_at).to.equal(null);
    const stored = JSON.stringify(row);
    for (const secret of [config.secret, rotated.secret]) expect(stored).not.to.include(secret.slice(6));
    const log = await activities(tenant.merchant_id);
    expect(log.map((a) => a.action)).to.deep.equal(['webhook_config.created', 'webhook_config.secret_rotated']);
    expect(log[1].changes.secret).to.equal('rotated');
    expect(JSON.stringify(log)).not.to.include(rotated.secret.slice(6));
  });

  it("takes no body; is 404 for another merchant's configuration and 403 without webhooks:write", async () => {
    const config = await createConfig(tenant, { url: URL_OK });
    expectError(
      await api.post(`/merchants/${tenant.merchant_id}/webhooks/${config.id}/rotate-secret`, {
        key: tenant.merchant_secret_key,
        body: { secret: 'x' },
      }),
      400,
      'validation_error',
    );
    const second = await addMerchant(tenant);
    expectError(await rotate(config.id, tenant.organization_secret_key, second.merchantId), 404, 'not_found_error');
    expectError(await rotate(config.id, await keyWithScopes(tenant, ['webhooks:read'])), 403, 'authorization_error');
    expectError(await rotate('whc_unknown00000000000000'), 404, 'not_found_error');
  });
});
