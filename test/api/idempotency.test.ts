import { expect } from 'chai';
import { api } from '../helpers/http';
import { addMerchant, createTenant, customerInput, type Tenant } from '../helpers/factories';
import { stack } from '../helpers/stack';
import { startApi } from '../../api/server';

async function customerCount(tenant: Tenant): Promise<number> {
  const res = await api.get('/customers', { key: tenant.merchant_secret_key });
  return res.body.meta.pagination.total;
}

describe('Idempotency (Document 1, rules 1–4)', () => {
  let tenant: Tenant;
  beforeEach(async () => {
    tenant = await createTenant();
  });

  it('answers a replay of the same key with 200 and the identical body, creating nothing more', async () => {
    const body = customerInput();
    const headers = { 'idempotency-key': 'create-ada-1' };
    const first = await api.post('/customers', { key: tenant.merchant_secret_key, body, headers });
    const replay = await api.post('/customers', { key: tenant.merchant_secret_key, body, headers });
    expect(first.status).to.equal(201);
    expect(replay.status).to.equal(200);
    expect(replay.text).to.equal(first.text);
    expect(replay.headers.get('idempotent-replayed')).to.equal('true');
    expect(await customerCount(tenant)).to.equal(1);
  });

  it('treats the same body with keys in another order as the same request', async () => {
    const body = customerInput();
    const reordered = Object.fromEntries(Object.entries(body).reverse());
    const headers = { 'idempotency-key': 'reordered' };
    await api.post('/customers', { key: tenant.merchant_secret_key, body, headers });
    const replay = await api.post('/customers', { key: tenant.merchant_secret_key, body: reordered, headers });
    expect(replay.status).to.equal(200);
  });

  it('returns 409 IDEMPOTENCY_KEY_CONFLICT when the key is reused with a different body, changing nothing', async () => {
    const headers = { 'idempotency-key': 'conflicting' };
    await api.post('/customers', { key: tenant.merchant_secret_key, body: customerInput(), headers });
    const res = await api.post('/customers', { key: tenant.merchant_secret_key, body: customerInput(), headers });
    expect(res.status).to.equal(409);
    expect(res.body.error).to.include({ type: 'conflict_error', code: 'IDEMPOTENCY_KEY_CONFLICT' });
    expect(await customerCount(tenant)).to.equal(1);
  });

  it('accepts the key as the idempotency_key body field', async () => {
    const body = { ...customerInput(), idempotency_key: 'in-body' };
    const first = await api.post('/customers', { key: tenant.merchant_secret_key, body });
    const replay = await api.post('/customers', { key: tenant.merchant_secret_key, body });
    expect([first.status, replay.status]).to.deep.equal([201, 200]);
    expect(replay.body).to.deep.equal(first.body);
  });

  it('lets the header win over the body field when both are present', async () => {
    const input = customerInput();
    const first = await api.post('/customers', {
      key: tenant.merchant_secret_key,
      body: input,
      headers: { 'idempotency-key': 'header-key' },
    });
    const replay = await api.post('/customers', {
      key: tenant.merchant_secret_key,
      body: { ...input, idempotency_key: 'some-other-body-key' },
      headers: { 'idempotency-key': 'header-key' },
    });
    expect(replay.status).to.equal(200);
    expect(replay.body).to.deep.equal(first.body);
  });

  it('scopes keys per merchant: the same key on two merchants runs twice', async () => {
    const sibling = await addMerchant(tenant);
    const headers = { 'idempotency-key': 'shared-key' };
    const a = await api.post('/customers', { key: tenant.merchant_secret_key, body: customerInput(), headers });
    const b = await api.post('/customers', { key: sibling.merchantKey, body: customerInput(), headers });
    expect([a.status, b.status]).to.deep.equal([201, 201]);
    expect(a.body.data.merchant_id).to.not.equal(b.body.data.merchant_id);
  });

  it('never runs two concurrent requests with one key: one creates, the other replays or gets 409', async () => {
    const body = customerInput();
    const headers = { 'idempotency-key': 'concurrent' };
    const results = await Promise.all(
      Array.from({ length: 5 }, () => api.post('/customers', { key: tenant.merchant_secret_key, body, headers })),
    );
    const statuses = results.map((res) => res.status).sort();
    expect(statuses.filter((status) => status === 201)).to.have.length(1);
    expect(statuses.every((status) => [200, 201, 409].includes(status))).to.equal(true);
    expect(await customerCount(tenant)).to.equal(1);
  });

  it('does not keep the key of a failed request, so the corrected retry runs', async () => {
    const headers = { 'idempotency-key': 'fix-and-retry' };
    const bad = await api.post('/customers', {
      key: tenant.merchant_secret_key,
      body: customerInput({ phone: 'nope' }),
      headers,
    });
    expect(bad.status).to.equal(400);
    const good = await api.post('/customers', { key: tenant.merchant_secret_key, body: customerInput(), headers });
    expect(good.status).to.equal(201);
  });

  it('forgets a key once its retention has passed', async () => {
    const headers = { 'idempotency-key': 'expiring' };
    await api.post('/customers', { key: tenant.merchant_secret_key, body: customerInput(), headers });
    await stack()
      .orm.em.fork()
      .execute(`update idempotency_keys set expires_at = now() - interval '1 second' where scope_id = ? and key = ?`, [
        tenant.merchant_id,
        'expiring',
      ]);
    const res = await api.post('/customers', { key: tenant.merchant_secret_key, body: customerInput(), headers });
    expect(res.status).to.equal(201);
    expect(await customerCount(tenant)).to.equal(2);
  });

  it('retains keys for 24 hours by default', async () => {
    await api.post('/customers', {
      key: tenant.merchant_secret_key,
      body: customerInput(),
      headers: { 'idempotency-key': 'ttl' },
    });
    const [row] = await stack()
      .orm.em.fork()
      .execute(
        `select extract(epoch from expires_at - created_at) as seconds from idempotency_keys where scope_id = ? and key = 'ttl'`,
        [tenant.merchant_id],
      );
    expect(Math.round(Number(row.seconds))).to.equal(24 * 60 * 60);
  });

  it('rejects a key longer than 255 characters with 400', async () => {
    const res = await api.post('/customers', {
      key: tenant.merchant_secret_key,
      body: customerInput(),
      headers: { 'idempotency-key': 'k'.repeat(256) },
    });
    expect(res.status).to.equal(400);
    expect(res.body.error.type).to.equal('validation_error');
    expect(await customerCount(tenant)).to.equal(0);
  });
});

describe('Idempotency while the first request is still running', () => {
  it('answers 409 IDEMPOTENCY_KEY_IN_USE once the wait for the first request runs out', async function () {
    this.timeout(20_000);
    const tenant = await createTenant();
    const impatient = await startApi({ ...stack().config, idempotencyWaitMs: 300 }, 0);
    try {
      // Plays the part of a first request that claimed the key and has not committed yet.
      await stack()
        .orm.em.fork()
        .transactional(async (tx) => {
          await tx.execute(
            `insert into idempotency_keys (scope_id, key, fingerprint, expires_at) values (?, 'slow', 'f', now() + interval '1 hour')`,
            [tenant.merchant_id],
          );
          const res = await api.post('/customers', {
            key: tenant.merchant_secret_key,
            body: customerInput(),
            headers: { 'idempotency-key': 'slow' },
            baseUrl: impatient.url,
          });
          expect(res.status).to.equal(409);
          expect(res.body.error).to.include({ type: 'conflict_error', code: 'IDEMPOTENCY_KEY_IN_USE' });
          throw new Error('rollback');
        })
        .catch((error: Error) => {
          if (error.message !== 'rollback') throw error;
        });
      expect(await customerCount(tenant)).to.equal(0);
    } finally {
      await impatient.stop();
    }
  });
});

describe('Idempotency records at rest', () => {
  it('stores the replayable response sealed, never as readable JSON', async () => {
    const tenant = await createTenant();
    const body = customerInput({ email: 'sealed.response@example.com' });
    await api.post('/customers', { key: tenant.merchant_secret_key, body, headers: { 'idempotency-key': 'sealed' } });
    const [row] = await stack()
      .orm.em.fork()
      .execute<{ response_sealed: string }[]>(
        `select response_sealed from idempotency_keys where scope_id = ? and key = 'sealed'`,
        [tenant.merchant_id],
      );
    expect(row.response_sealed).to.match(/^v1\./);
    expect(row.response_sealed).to.not.include('sealed.response@example.com');
  });
});
