/**
 * The 3-D Secure wait (transactionAuthenticationWorkflow) on the time-skipping test server, with the real
 * activities against the stack's database and sandbox: a buyer who never returns is given up on at expires_at (the
 * payment canceled at the provider, the charge failed authentication_abandoned, once), a return after that changes
 * nothing, and a worker restart in the middle of the wait loses nothing. The challenged charge is a real one made
 * through the API; the stack's own wait for it is terminated first, so only the wait under test decides.
 */
import { expect } from 'chai';
import { api } from '../helpers/http';
import { createTenant, giveWebsite, type Tenant } from '../helpers/factories';
import { rows } from '../helpers/connectors';
import { control } from '../helpers/sandbox';
import { stack } from '../helpers/stack';
import { stackWorker, useTimeSkipping } from '../helpers/time-skipping';
import { cardCharge, cardToken, cascade, charge } from '../helpers/transactions';
import { transactionAuthenticationWorkflow } from '../../workflows/transaction-authentication';
import {
  authenticationReturnedSignal,
  authenticationWorkflowId,
  waitingForQuery,
} from '../../workflows/transaction.shared';

const CHALLENGE = { number: '4000000000003220', cvc: '123', brand: 'visa' };
const RETURN_URL = 'http://localhost:5999/shop/thanks';
const CHALLENGE_MS = 15 * 60 * 1000;

describe('transactionAuthenticationWorkflow (time-skipping test server)', () => {
  const taskQueue = 'test-three-ds-wait';
  const server = useTimeSkipping();

  /** A real challenged charge whose wait runs only on the time-skipping server, from its clock's now. */
  async function challenged(slug: 'provider_a' | 'provider_b' = 'provider_a') {
    const tenant = await createTenant();
    // 3-D Secure needs the merchant's website, an issuer's challenge too.
    await giveWebsite(tenant);
    const [connector] = await cascade(tenant, [slug], { webhooks: false });
    const res = await charge(tenant, cardCharge(await cardToken(tenant, CHALLENGE), { return_url: RETURN_URL }));
    expect(res.status, res.text).to.equal(201);
    const tx = res.body.data;
    expect(tx.status).to.equal('pending');
    await stack().api.deps.temporal.client.workflow.getHandle(authenticationWorkflowId(tx.id)).terminate('test');
    const expiresAt = new Date(Number(await server.env.currentTimeMs()) + CHALLENGE_MS).toISOString();
    const handle = await server.env.client.workflow.start(transactionAuthenticationWorkflow, {
      workflowId: `test-${authenticationWorkflowId(tx.id)}`,
      taskQueue,
      args: [
        {
          transactionId: tx.id,
          attemptNumber: 1,
          attempt: { connectorId: connector.id, providerSlug: slug, nodeId: null, threeDs: false },
          amount: 1500,
          capture: true,
          expiresAt,
        },
      ],
    });
    const paymentId = new URL(tx.next_action.url).pathname.split('/').pop()!;
    return { tenant, tx, handle, paymentId, connector };
  }

  const failedEvents = (tenant: Tenant, id: string) =>
    rows(`select id from events where merchant_id = ? and type = 'transaction.failed' and data->>'id' = ?`, [
      tenant.merchant_id,
      id,
    ]);

  const read = async (tenant: Tenant, id: string) =>
    (await api.get(`/transactions/${id}`, { key: tenant.merchant_secret_key })).body.data;

  it('a buyer who never returns is given up on at expires_at: payment voided at the provider, attempt abandoned, charge failed authentication_abandoned, one transaction.failed', async () => {
    const { tenant, tx, handle, paymentId } = await challenged();
    const worker = await stackWorker(server.env, taskQueue);
    expect(await worker.runUntil(handle.result())).to.deep.equal({ transactionId: tx.id, status: 'failed' });
    expect(await read(tenant, tx.id)).to.include({
      status: 'failed',
      failure_code: 'authentication_abandoned',
      next_action: null,
    });
    const [attempt] = (await api.get(`/transactions/${tx.id}/attempts`, { key: tenant.merchant_secret_key })).body.data;
    expect(attempt.three_ds).to.include({ status: 'abandoned', liability_shift: false });
    expect((await control('GET', `/payments/${paymentId}`)).body.state).to.equal('voided');
    expect(await failedEvents(tenant, tx.id)).to.have.length(1);
  });

  it('at the deadline a cancel the provider refuses is not taken for one: the charge fails abandoned only once the payment is canceled there', async () => {
    const { tenant, tx, handle, paymentId, connector } = await challenged();
    // The provider refuses the first cancel (5xx, nothing processed): the buyer could still complete the challenge.
    const refused = await control('POST', '/overrides', {
      provider: 'provider_a',
      credentials: connector.credentials,
      operation: 'void',
      scenario: 'processing_error',
      times: 1,
    });
    expect(refused.status, JSON.stringify(refused.body)).to.equal(201);
    const worker = await stackWorker(server.env, taskQueue);
    expect(await worker.runUntil(handle.result())).to.deep.equal({ transactionId: tx.id, status: 'failed' });
    expect((await control('GET', `/payments/${paymentId}`)).body.state).to.equal('voided');
    expect(await read(tenant, tx.id)).to.include({ status: 'failed', failure_code: 'authentication_abandoned' });
    expect(await failedEvents(tenant, tx.id)).to.have.length(1);
  });

  it('a return after the deadline changes nothing: the buyer is sent to return_url, the charge stays failed', async () => {
    const { tenant, tx, handle, paymentId } = await challenged();
    const worker = await stackWorker(server.env, taskQueue);
    await worker.runUntil(handle.result());
    // The challenge page no longer takes a verdict once the payment was canceled; the return endpoint still answers.
    const late = await fetch(tx.next_action.url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'outcome=authenticated',
      redirect: 'manual',
    });
    expect(late.status).to.equal(303);
    const back = await fetch(late.headers.get('location')!, { redirect: 'manual' });
    expect(back.status).to.equal(303);
    expect(back.headers.get('location')).to.equal(`${RETURN_URL}?transaction_id=${tx.id}`);
    expect((await control('GET', `/payments/${paymentId}`)).body.state).to.equal('voided');
    expect(await read(tenant, tx.id)).to.include({ status: 'failed', failure_code: 'authentication_abandoned' });
    expect(await failedEvents(tenant, tx.id)).to.have.length(1);
  });

  it('a worker restart during the wait loses nothing: a new worker picks it up and the completed challenge authorizes', async () => {
    const { tenant, tx, handle, paymentId } = await challenged();
    // No sticky cache: the first worker's own (sticky) queue would keep the next task after it stopped (the
    // time-skipping server did not hand it on to the new worker), and the new worker rebuilds the wait from history.
    const first = await stackWorker(server.env, taskQueue, { maxCachedWorkflows: 0 });
    // The query answers once the first worker ran the wait's first task (its timer started); then it stops.
    expect(await first.runUntil(handle.query(waitingForQuery))).to.include({ type: 'three_ds_challenge', lookups: 0 });
    const completed = await fetch(tx.next_action.url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'outcome=authenticated',
      redirect: 'manual',
    });
    expect(completed.status).to.equal(303);
    expect((await control('GET', `/payments/${paymentId}`)).body.state).to.equal('captured');
    await handle.signal(authenticationReturnedSignal);
    const second = await stackWorker(server.env, taskQueue);
    expect(await second.runUntil(handle.result())).to.deep.equal({ transactionId: tx.id, status: 'authorized' });
    expect(await read(tenant, tx.id)).to.include({ status: 'authorized', amount_authorized: 1500 });
  });

  it("provider_b (Adyen): the return's redirectResult reaches /payments/details through the signal, and the passed challenge authorizes", async () => {
    const { tenant, tx, handle } = await challenged('provider_b');
    const completed = await fetch(tx.next_action.url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'outcome=authenticated',
      redirect: 'manual',
    });
    const redirectResult = new URL(completed.headers.get('location')!).searchParams.get('redirectResult');
    expect(redirectResult).to.be.a('string');
    await handle.signal(authenticationReturnedSignal, { returnParams: { redirectResult: redirectResult! } });
    const worker = await stackWorker(server.env, taskQueue);
    expect(await worker.runUntil(handle.result())).to.deep.equal({ transactionId: tx.id, status: 'authorized' });
    const [attempt] = (await api.get(`/transactions/${tx.id}/attempts`, { key: tenant.merchant_secret_key })).body.data;
    expect(attempt.three_ds).to.include({
      status: 'authenticated',
      version: '2.2.0',
      eci: '05',
      liability_shift: true,
    });
  });

  it('provider_b (Adyen): a buyer who never returns and no notification: at expires_at the payment is canceled at Adyen, the charge fails authentication_abandoned', async () => {
    const { tenant, tx, handle, paymentId } = await challenged('provider_b');
    const worker = await stackWorker(server.env, taskQueue);
    expect(await worker.runUntil(handle.result())).to.deep.equal({ transactionId: tx.id, status: 'failed' });
    expect(await read(tenant, tx.id)).to.include({ status: 'failed', failure_code: 'authentication_abandoned' });
    expect((await control('GET', `/payments/${paymentId}`)).body.state).to.equal('voided');
  });
});
