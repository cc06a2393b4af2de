/**
 * Idempotent requests run in phases (claim the key and commit, work, store the answer and commit). A request that
 * died between phases leaves a claimed key with no answer: a retry with the same request takes it over once the
 * claim's lease has passed — not before, and never with another request.
 */
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { requestFingerprint } from '../../api/http/idempotency';
import { startApi } from '../../api/server';
import { api } from '../helpers/http';
import { createTenant, customerInput, type Tenant } from '../helpers/factories';
import { expectError } from '../helpers/envelope';
import { accountOf, ledger } from '../helpers/sandbox';
import { stack } from '../helpers/stack';
import { cardCharge, cardToken, cascade } from '../helpers/transactions';

/** Plays a request that claimed `key` for `fingerprint`, committed, and died before storing its answer. */
async function deadClaim(tenant: Tenant, key: string, fingerprint: string, leaseLeft: string): Promise<void> {
  await stack()
    .orm.em.fork()
    .execute(
      `insert into idempotency_keys (scope_id, key, fingerprint, expires_at, claim_id, lease_until)
       values (?, ?, ?, now() + interval '1 day', 'dead-request', now() + ?::interval)`,
      [tenant.merchant_id, key, fingerprint, leaseLeft],
    );
}

describe('Idempotency: a key whose request died between phases', () => {
  let tenant: Tenant;
  beforeEach(async () => {
    tenant = await createTenant();
  });

  it('a claimed key with no answer is taken over by a retry of the same request once its lease has passed', async () => {
    const body = customerInput();
    await deadClaim(tenant, 'died', requestFingerprint('post', '/customers', {}, body), '-1 second');
    const retried = await api.post('/customers', {
      key: tenant.merchant_secret_key,
      body,
      headers: { 'idempotency-key': 'died' },
    });
    expect(retried.status, retried.text).to.equal(201);
    const replay = await api.post('/customers', {
      key: tenant.merchant_secret_key,
      body,
      headers: { 'idempotency-key': 'died' },
    });
    expect(replay.status).to.equal(200);
    expect(replay.text).to.equal(retried.text);
  });

  it('a claimed key whose lease has not passed answers 409 IDEMPOTENCY_KEY_IN_USE after the wait', async function () {
    this.timeout(20_000);
    const body = customerInput();
    await deadClaim(tenant, 'running', requestFingerprint('post', '/customers', {}, body), '1 hour');
    const impatient = await startApi({ ...stack().config, idempotencyWaitMs: 300 }, 0);
    try {
      const res = await api.post('/customers', {
        key: tenant.merchant_secret_key,
        body,
        headers: { 'idempotency-key': 'running' },
        baseUrl: impatient.url,
      });
      expectError(res, 409, 'conflict_error', 'IDEMPOTENCY_KEY_IN_USE');
    } finally {
      await impatient.stop();
    }
  });

  it('a dead claim is never taken over by another request: 409 IDEMPOTENCY_KEY_CONFLICT', async () => {
    await deadClaim(tenant, 'other', requestFingerprint('post', '/customers', {}, customerInput()), '-1 second');
    const res = await api.post('/customers', {
      key: tenant.merchant_secret_key,
      body: customerInput(),
      headers: { 'idempotency-key': 'other' },
    });
    expectError(res, 409, 'conflict_error', 'IDEMPOTENCY_KEY_CONFLICT');
  });

  it('a charge whose request died after the charge but before storing its answer is answered by the retry, charged once', async () => {
    const [connector] = await cascade(tenant, ['provider_a']);
    const body = cardCharge(await cardToken(tenant));
    const key = randomUUID();
    const send = () =>
      api.post('/transactions', { key: tenant.merchant_secret_key, body, headers: { 'idempotency-key': key } });
    const first = await send();
    expect(first.status, first.text).to.equal(201);
    // Phase 3 never happened: the key is claimed, with no answer, and its holder's lease has passed.
    await stack()
      .orm.em.fork()
      .execute(
        `update idempotency_keys set response_status = null, response_sealed = null, lease_until = now() - interval '1 second'
         where scope_id = ? and key = ?`,
        [tenant.merchant_id, key],
      );
    const retried = await send();
    expect(retried.status, retried.text).to.equal(201);
    expect(retried.body.data).to.include({ id: first.body.data.id, status: 'authorized' });
    const charges = (
      await ledger({ provider: 'provider_a', account: await accountOf('provider_a', connector.credentials) })
    ).filter((e) => e.operation === 'authorize' && !e.replayed);
    expect(charges.map((e) => e.reference)).to.deep.equal([first.body.data.id]);
    expect((await send()).text).to.equal(retried.text);
  });
});
