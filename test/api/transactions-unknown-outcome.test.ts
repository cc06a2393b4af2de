/**
 * An unknown outcome never cascades to another connector: on a two-provider route, a first provider that timed out
 * (card 4000000000000408) or answered 5xx (card 4000000000000119) is looked up by the attempt's idempotency key.
 * Whatever happens, the sandbox ledger shows at most one successful charge across both providers, and the
 * transaction's final state matches the ledger.
 */
import { expect } from 'chai';
import { createTenant, type Tenant } from '../helpers/factories';
import { api } from '../helpers/http';
import { control, ledger, type LedgerEntry } from '../helpers/sandbox';
import { stack } from '../helpers/stack';
import { cardCharge, cardToken, cascade, charge, override, type CascadeConnector } from '../helpers/transactions';

const NO_ANSWER = { number: '4000000000000408', cvc: '123', brand: 'visa' };
const SERVER_ERROR = { number: '4000000000000119', cvc: '123', brand: 'visa' };
const SUCCESSFUL = ['approved', 'authorized'];
const client = () => stack().api.deps.temporal.client;

/** First-time (not replayed) authorizations the provider processed successfully, for this transaction. */
const charges = async (reference: string): Promise<LedgerEntry[]> =>
  (await ledger({ reference })).filter(
    (entry) => entry.operation === 'authorize' && !entry.replayed && SUCCESSFUL.includes(entry.outcome),
  );

describe('POST /api/v1/transactions — an unknown outcome never cascades to another connector', () => {
  let tenant: Tenant;
  let connectors: CascadeConnector[];

  beforeEach(async () => {
    tenant = await createTenant();
    connectors = await cascade(tenant, ['provider_a', 'checkout']);
    // Were the cascade to move on, the second provider would charge the customer whatever the card.
    await override(connectors[1], 'approve');
  });

  async function chargeWith(card: typeof NO_ANSWER) {
    const res = await charge(tenant, cardCharge(await cardToken(tenant, card)));
    expect(res.status, res.text).to.equal(201);
    return res.body.data;
  }

  it('a timeout after the first provider charged: the lookup finds the charge, no second provider is called', async function () {
    this.timeout(60_000);
    await override(connectors[0], 'approved_no_answer', 1);
    const tx = await chargeWith(NO_ANSWER);
    const charged = await charges(tx.id);
    expect(charged.map((entry) => entry.provider)).to.deep.equal(['provider_a']);
    expect(tx).to.include({ status: 'authorized', amount_captured: 1500 });
    expect(tx.timeline.map((a: any) => [a.connector_id, a.status])).to.deep.equal([[connectors[0].id, 'success']]);
    const [attempt] = await attemptsOf(tenant, tx.id);
    expect(attempt.provider_reference).to.equal(charged[0].provider_reference);
  });

  it('a 5xx after the first provider charged: the lookup finds the charge, no second provider is called', async () => {
    await override(connectors[0], 'approved_server_error', 1);
    const tx = await chargeWith(SERVER_ERROR);
    expect((await charges(tx.id)).map((entry) => entry.provider)).to.deep.equal(['provider_a']);
    expect(tx.status).to.equal('authorized');
    expect(tx.timeline.map((a: any) => [a.connector_id, a.status])).to.deep.equal([[connectors[0].id, 'success']]);
  });

  it('a timeout where the first provider holds nothing under the key: safe to move on, one charge at the second', async function () {
    this.timeout(60_000);
    const tx = await chargeWith(NO_ANSWER);
    expect((await charges(tx.id)).map((entry) => entry.provider)).to.deep.equal(['checkout']);
    expect(tx.status).to.equal('authorized');
    expect(tx.timeline[1].connector_id).to.equal(connectors[1].id);
    expect(tx.timeline.map((a: any) => [a.status, a.error_category])).to.deep.equal([
      ['error', 'network_error'],
      ['success', null],
    ]);
    const account = (
      await control('POST', '/accounts/resolve', { provider: 'provider_a', credentials: connectors[0].credentials })
    ).body.account;
    // Stripe's search is eventually consistent: its empty answer is confirmed by the list of recent PaymentIntents.
    const lookups = await ledger({ provider: 'provider_a', account, operation: 'lookup' });
    expect(lookups.map((entry) => entry.reason)).to.deep.equal(['not_found', 'listed']);
  });

  it('a 5xx where the first provider holds nothing under the key: safe to move on, one charge at the second', async () => {
    const tx = await chargeWith(SERVER_ERROR);
    expect((await charges(tx.id)).map((entry) => entry.provider)).to.deep.equal(['checkout']);
    expect(tx.status).to.equal('authorized');
    expect(tx.timeline[1].connector_id).to.equal(connectors[1].id);
    expect(tx.timeline.map((a: any) => [a.status, a.error_category])).to.deep.equal([
      ['error', 'processing_error'],
      ['success', null],
    ]);
  });

  it('when the lookup cannot tell, the cascade stops: 201 pending, the attempt unresolved, and the charge’s own resolution looks again', async function () {
    this.timeout(60_000);
    await override(connectors[0], 'approved_server_error', 1);
    const lookup = await control('POST', '/overrides', {
      provider: 'provider_a',
      credentials: connectors[0].credentials,
      operation: 'lookup',
      scenario: 'processing_error',
      times: 1,
    });
    expect(lookup.status, JSON.stringify(lookup.body)).to.equal(201);
    const tx = await chargeWith(SERVER_ERROR);
    // Not `failed`: the buyer is not told nothing was charged while the provider may have charged.
    expect(tx.status).to.equal('pending');
    expect(tx.timeline.map((a: any) => [a.connector_id, a.status, a.error_code])).to.deep.equal([
      [connectors[0].id, 'error', 'provider_outcome_unknown'],
    ]);
    expect((await attemptsOf(tenant, tx.id))[0].outcome).to.equal('unknown');
    // One charge, at the first provider: the second is never called while the first is in doubt.
    expect((await charges(tx.id)).map((entry) => entry.provider)).to.deep.equal(['provider_a']);
    // The resolution waits on its durable timer (its findings and the reconciler's safety net: the workflow tests).
    const resolution = await client().workflow.getHandle(`transaction-resolution-${tx.id}`).describe();
    expect(resolution.status.name).to.equal('RUNNING');
  });
});

async function attemptsOf(tenant: Tenant, transactionId: string): Promise<any[]> {
  const res = await api.get(`/transactions/${transactionId}/attempts`, { key: tenant.merchant_secret_key });
  expect(res.status, res.text).to.equal(200);
  return res.body.data;
}

describe('POST /api/v1/transactions — an infrastructure error inside attemptCharge is never a decline', () => {
  it('an unreadable connector secret is thrown and retried, then leaves the attempt unresolved (pending): no cascade', async function () {
    this.timeout(60_000);
    const tenant = await createTenant();
    const connectors = await cascade(tenant, ['provider_a', 'checkout']);
    await override(connectors[1], 'approve');
    // Not a business failure (the connector exists): the key ring cannot open it, as after a botched key rotation.
    await stack()
      .orm.em.fork()
      .execute(`update merchant_connectors set credentials_encrypted = 'v1:corrupt' where id = ?`, [connectors[0].id]);
    const res = await charge(tenant, cardCharge(await cardToken(tenant)));
    expect(res.status, res.text).to.equal(201);
    const tx = res.body.data;
    expect(tx.status).to.equal('pending');
    expect(tx.timeline.map((a: any) => [a.connector_id, a.error_code])).to.deep.equal([
      [connectors[0].id, 'provider_outcome_unknown'],
    ]);
    expect(await charges(tx.id)).to.deep.equal([]);
  });
});
