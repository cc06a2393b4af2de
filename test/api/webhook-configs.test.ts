/** POST/GET /api/v1/merchants/:merchant_id/webhook-configs(/:webhook_id): Document 1 "Webhook endpoint management". */
import { expect } from 'chai';
import { api } from '../helpers/http';
import { addMerchant, createTenant, keyWithScopes, type Tenant } from '../helpers/factories';
import { expectError, expectFieldErrors, ISO_UTC_MS } from '../helpers/envelope';
import { CONFIG_KEYS, configsPath, createConfig } from '../helpers/webhooks';
import { stack } from '../helpers/stack';

const URL_OK = 'https://hooks.example.com/switchyard';

describe('POST /api/v1/merchants/:merchant_id/webhook-configs', () => {
  let tenant: Tenant;
  beforeEach(async () => {
    tenant = await createTenant();
  });
  const post = (body: unknown, key = tenant.merchant_secret_key, merchantId = tenant.merchant_id) =>
    api.post(configsPath(merchantId), { key, body });

  it('returns 201 with the bare configuration plus its whsec_ secret; active, never triggered, all events', async () => {
    const res = await post({ url: URL_OK, description: 'Orders service' });
    expect(res.status, res.text).to.equal(201);
    expect(Object.keys(res.body)).to.deep.equal([...CONFIG_KEYS, 'secret']);
    expect(res.body).to.include({
      merchant_id: tenant.merchant_id,
      url: URL_OK,
      description: 'Orders service',
      event_filter: null,
      is_active: true,
      last_triggered_at: null,
    });
    expect(res.body.id).to.match(/^whc_[0-9A-Za-z]+$/);
    expect(res.body.created_at).to.match(ISO_UTC_MS);
    expect(res.body.updated_at).to.equal(res.body.created_at);
  });

  it('generates the secret as whsec_ plus base64 of 32 random bytes, different every time', async () => {
    const [a, b] = [await createConfig(tenant, { url: URL_OK }), await createConfig(tenant, { url: URL_OK })];
    for (const { secret } of [a, b]) {
      expect(secret).to.match(/^whsec_[A-Za-z0-9+/]+=*$/);
      expect(Buffer.from(secret.slice('whsec_'.length), 'base64')).to.have.length(32);
    }
    expect(a.secret).not.to.equal(b.secret);
  });

  it('keeps an event_filter of catalog names as given; null and omitted both mean every event', async () => {
    const filtered = await createConfig(tenant, {
      url: URL_OK,
      event_filter: ['transaction.authorized', 'subscription.renewed'],
    });
    expect(filtered.event_filter).to.deep.equal(['transaction.authorized', 'subscription.renewed']);
    expect((await createConfig(tenant, { url: URL_OK, event_filter: null })).event_filter).to.equal(null);
  });

  it('accepts every event name of the catalog, including ones whose producers have not landed yet', async () => {
    const names = [
      'payment_method.action_required',
      'subscription.payment_method_changed',
      'transaction.dispute_closed',
      'transaction.refund_cancelled',
    ];
    expect((await createConfig(tenant, { url: URL_OK, event_filter: names })).event_filter).to.deep.equal(names);
  });

  it('refuses unknown, duplicate and empty event filters (400 naming event_filter)', async () => {
    expectFieldErrors(await post({ url: URL_OK, event_filter: ['transaction.authorised'] }), ['event_filter.0']);
    expectFieldErrors(await post({ url: URL_OK, event_filter: ['transaction.created', 'transaction.created'] }), [
      'event_filter',
    ]);
    expectFieldErrors(await post({ url: URL_OK, event_filter: [] }), ['event_filter']);
    expectFieldErrors(await post({ url: URL_OK, event_filter: 'transaction.created' }), ['event_filter']);
  });

  it('requires an absolute https URL without credentials or fragment (400 naming url)', async () => {
    for (const url of [
      'http://hooks.example.com/x',
      'ftp://hooks.example.com/x',
      'hooks.example.com/x',
      'https://user:pw@hooks.example.com/x',
      'https://hooks.example.com/x#frag',
      'https:// spaced.example.com',
    ]) {
      const error = expectError(await post({ url }), 400, 'validation_error');
      expect(Object.keys(error.details), url).to.deep.equal(['url']);
    }
    expectFieldErrors(await post({}), ['url']);
    expectFieldErrors(await post({ url: `https://example.com/${'a'.repeat(2100)}` }), ['url']);
  });

  it('accepts plain http to loopback only because the service runs in test mode', async () => {
    expect(stack().config.env).to.equal('test');
    for (const url of ['http://127.0.0.1:4000/hook', 'http://localhost:4000/hook', 'http://[::1]:4000/hook']) {
      expect((await createConfig(tenant, { url })).url).to.equal(url);
    }
    expectFieldErrors(await post({ url: 'http://10.0.0.5/hook' }), ['url']);
  });

  it('refuses unknown fields, including is_active (creation always starts active)', async () => {
    expectFieldErrors(await post({ url: URL_OK, is_active: false }), ['is_active']);
    expectFieldErrors(await post({ url: URL_OK, secret: 'whsec_mine' }), ['secret']);
  });

  it('accepts an organization key for a merchant of its organization; 403 for another organization or merchant', async () => {
    const res = await post({ url: URL_OK }, tenant.organization_secret_key);
    expect(res.status, res.text).to.equal(201);
    expect(res.body.merchant_id).to.equal(tenant.merchant_id);
    const other = await createTenant();
    expectError(await post({ url: URL_OK }, other.organization_secret_key), 403, 'authorization_error');
    const second = await addMerchant(tenant);
    expectError(await post({ url: URL_OK }, second.merchantKey), 403, 'authorization_error');
  });

  it('requires webhooks:write (403 with read only) and a key (401)', async () => {
    expectError(
      await post({ url: URL_OK }, await keyWithScopes(tenant, ['webhooks:read'])),
      403,
      'authorization_error',
    );
    expectError(
      await api.post(configsPath(tenant.merchant_id), { body: { url: URL_OK } }),
      401,
      'authentication_error',
    );
  });

  it('replays an Idempotency-Key with the same body (secret included) and stores that replay encrypted', async () => {
    const headers = { 'idempotency-key': `whc-${Date.now()}` };
    const first = await api.post(configsPath(tenant.merchant_id), {
      key: tenant.merchant_secret_key,
      body: { url: URL_OK },
      headers,
    });
    const again = await api.post(configsPath(tenant.merchant_id), {
      key: tenant.merchant_secret_key,
      body: { url: URL_OK },
      headers,
    });
    expect(first.status).to.equal(201);
    expect(again.status).to.equal(200);
    expect(again.headers.get('idempotent-replayed')).to.equal('true');
    expect(again.body).to.deep.equal(first.body);
    const rows = await stack()
      .orm.em.fork()
      .execute<{ response_sealed: string }[]>(
        'select response_sealed from idempotency_keys where scope_id = ? and key = ?',
        [tenant.merchant_id, headers['idempotency-key']],
      );
    expect(rows).to.have.length(1);
    expect(rows[0].response_sealed).not.to.include(first.body.secret.slice('whsec_'.length));
    const list = await api.get(configsPath(tenant.merchant_id), { key: tenant.merchant_secret_key });
    expect(list.body.meta.total).to.equal(1);
  });

  it('records webhook_config.created in the merchant activity log, without the secret', async () => {
    const created = await createConfig(tenant, { url: URL_OK, event_filter: ['transaction.failed'] });
    const [row] = await stack()
      .orm.em.fork()
      .execute<{ action: string; actor_type: string; changes: Record<string, unknown> }[]>(
        'select action, actor_type, changes from merchant_activities where merchant_id = ?',
        [tenant.merchant_id],
      );
    expect(row.action).to.equal('webhook_config.created');
    expect(row.actor_type).to.equal('api_key');
    expect(row.changes).to.deep.include({
      webhook_id: created.id,
      url: URL_OK,
      event_filter: ['transaction.failed'],
      secret: 'set',
    });
    expect(JSON.stringify(row)).not.to.include(created.secret.slice('whsec_'.length));
  });
});

describe('GET /api/v1/merchants/:merchant_id/webhook-configs', () => {
  let tenant: Tenant;
  beforeEach(async () => {
    tenant = await createTenant();
  });

  it("lists the merchant's configurations newest first, bare {data, meta} with flat pagination and no secrets", async () => {
    const first = await createConfig(tenant, { url: URL_OK });
    const second = await createConfig(tenant, { url: `${URL_OK}/2`, event_filter: ['transaction.created'] });
    const other = await addMerchant(tenant);
    await api.post(configsPath(other.merchantId), { key: other.merchantKey, body: { url: URL_OK } });
    const res = await api.get(configsPath(tenant.merchant_id), { key: tenant.merchant_secret_key });
    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.have.all.keys(['data', 'meta']);
    expect(res.body.meta).to.deep.equal({
      page: 1,
      limit: 20,
      total: 2,
      total_pages: 1,
      has_next: false,
      has_prev: false,
    });
    expect(res.body.data.map((c: any) => c.id)).to.deep.equal([second.id, first.id]);
    for (const config of res.body.data) expect(Object.keys(config)).to.deep.equal(CONFIG_KEYS);
    const { secret: _secret, ...withoutSecret } = first;
    expect(res.body.data[1]).to.deep.equal(withoutSecret);
  });

  it('pages with page and limit, and refuses an out-of-range limit (400)', async () => {
    for (let i = 0; i < 3; i += 1) await createConfig(tenant, { url: URL_OK });
    const res = await api.get(configsPath(tenant.merchant_id), {
      key: tenant.merchant_secret_key,
      query: { page: 2, limit: 2 },
    });
    expect(res.body.data).to.have.length(1);
    expect(res.body.meta).to.deep.equal({
      page: 2,
      limit: 2,
      total: 3,
      total_pages: 2,
      has_next: false,
      has_prev: true,
    });
    expectError(
      await api.get(configsPath(tenant.merchant_id), { key: tenant.merchant_secret_key, query: { limit: 101 } }),
      400,
      'validation_error',
    );
  });

  it('accepts an organization key via the path; requires webhooks:read', async () => {
    await createConfig(tenant, { url: URL_OK });
    const res = await api.get(configsPath(tenant.merchant_id), { key: tenant.organization_secret_key });
    expect(res.body.data).to.have.length(1);
    expectError(
      await api.get(configsPath(tenant.merchant_id), { key: await keyWithScopes(tenant, ['webhooks:write']) }),
      403,
      'authorization_error',
    );
    expect(
      (
        await api.get(configsPath(tenant.merchant_id), {
          key: await keyWithScopes(tenant, ['webhooks:read'], 'organization'),
        })
      ).status,
    ).to.equal(200);
  });
});

describe('GET /api/v1/merchants/:merchant_id/webhook-configs/:webhook_id', () => {
  let tenant: Tenant;
  beforeEach(async () => {
    tenant = await createTenant();
  });

  it('returns the configuration as created, without its secret', async () => {
    const { secret, ...created } = await createConfig(tenant, { url: URL_OK, description: 'x' });
    const res = await api.get(`${configsPath(tenant.merchant_id)}/${created.id}`, { key: tenant.merchant_secret_key });
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal(created);
    expect(res.text).not.to.include(secret);
  });

  it("is 404 for another merchant's configuration (even with an organization key owning both) and for unknown or malformed ids", async () => {
    const created = await createConfig(tenant, { url: URL_OK });
    const second = await addMerchant(tenant);
    expectError(
      await api.get(`${configsPath(second.merchantId)}/${created.id}`, { key: tenant.organization_secret_key }),
      404,
      'not_found_error',
    );
    expectError(
      await api.get(`${configsPath(second.merchantId)}/${created.id}`, { key: second.merchantKey }),
      404,
      'not_found_error',
    );
    expectError(
      await api.get(`${configsPath(tenant.merchant_id)}/whc_doesnotexist0000000000`, {
        key: tenant.merchant_secret_key,
      }),
      404,
      'not_found_error',
    );
    expectError(
      await api.get(`${configsPath(tenant.merchant_id)}/not-an-id`, { key: tenant.merchant_secret_key }),
      404,
      'not_found_error',
    );
  });
});

describe('Webhook configurations per merchant are capped (fan-out amplification)', () => {
  it('refuses the 17th configuration with 422 WEBHOOK_CONFIG_LIMIT_REACHED; deleting one makes room', async function () {
    this.timeout(60_000);
    const tenant = await createTenant();
    const created = [];
    for (let i = 0; i < 16; i += 1) created.push(await createConfig(tenant, { url: URL_OK }));
    const over = await api.post(configsPath(tenant.merchant_id), {
      key: tenant.merchant_secret_key,
      body: { url: URL_OK },
    });
    expectError(over, 422, 'business_rule_error', 'WEBHOOK_CONFIG_LIMIT_REACHED');
    const removed = await api.delete(`${configsPath(tenant.merchant_id)}/${created[0].id}`, {
      key: tenant.merchant_secret_key,
    });
    expect(removed.status, removed.text).to.be.oneOf([200, 204]);
    await createConfig(tenant, { url: URL_OK });
  });
});
