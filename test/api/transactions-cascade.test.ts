/**
 * POST /transactions against the sandbox PSP: the charge-cascade workflow tries the routed connectors in order,
 * moves on after a retryable outcome, stops at a hard decline, and records every attempt on the timeline.
 */
import { expect } from 'chai';
import { api } from '../helpers/http';
import { createTenant, type Tenant } from '../helpers/factories';
import { ledger } from '../helpers/sandbox';
import { CARDS } from '../helpers/vault';
import { cardCharge, cardToken, cascade, charge, override, type CascadeConnector } from '../helpers/transactions';

const authorizeCalls = async (reference: string) =>
  (await ledger({ reference })).filter((entry) => entry.operation === 'authorize' && !entry.replayed);

describe('POST /api/v1/transactions — the charge cascade', () => {
  let tenant: Tenant;
  let connectors: CascadeConnector[];

  beforeEach(async () => {
    tenant = await createTenant();
    connectors = await cascade(tenant, ['provider_a', 'provider_a', 'provider_a']);
  });

  it('approves on the first connector: 201 authorized, one successful attempt, applied_routing_rule_id is its node', async () => {
    const res = await charge(tenant, cardCharge(await cardToken(tenant)));
    expect(res.status, res.text).to.equal(201);
    const tx = res.body.data;
    expect(tx.id).to.match(/^tx_/);
    expect(tx.status).to.equal('authorized');
    expect(tx.amount_authorized).to.equal(1500);
    expect(tx.amount_captured).to.equal(1500);
    expect(tx.payment_instructions).to.equal(null);
    expect(tx.timeline).to.have.length(1);
    expect(tx.timeline[0]).to.include({
      attempt_number: 1,
      is_fallback: false,
      connector_id: connectors[0].id,
      provider_slug: 'provider_a',
      status: 'success',
      error_category: null,
    });
    expect(tx.timeline[0].finished_at).to.be.a('string');
    expect(tx.applied_routing_rule_id).to.match(/^rn_/);
    expect(await authorizeCalls(tx.id)).to.have.length(1);
  });

  it('cascades over two retryable declines to the third connector, each fallback marked is_fallback', async () => {
    await override(connectors[0], 'do_not_honor');
    await override(connectors[1], 'processing_error');
    const res = await charge(tenant, cardCharge(await cardToken(tenant)));
    expect(res.status, res.text).to.equal(201);
    const tx = res.body.data;
    expect(tx.status).to.equal('authorized');
    expect(tx.timeline.map((a: any) => [a.connector_id, a.status, a.is_fallback, a.error_category])).to.deep.equal([
      [connectors[0].id, 'failed', false, 'soft_decline'],
      [connectors[1].id, 'error', true, 'processing_error'],
      [connectors[2].id, 'success', true, null],
    ]);
    expect(tx.timeline[0].error_code).to.be.a('string');
    // The default connector produced the success: no routing node.
    expect(tx.applied_routing_rule_id).to.equal(null);
  });

  it('stops at once on a hard decline: 201 failed with one attempt and no other connector called', async () => {
    const res = await charge(tenant, cardCharge(await cardToken(tenant, CARDS.stolen)));
    expect(res.status, res.text).to.equal(201);
    const tx = res.body.data;
    expect(tx.status).to.equal('failed');
    expect(tx.amount_authorized).to.equal(0);
    expect(tx.timeline).to.have.length(1);
    expect(tx.timeline[0]).to.include({ status: 'failed', error_category: 'hard_decline' });
    expect(await authorizeCalls(tx.id)).to.have.length(1);
  });

  it('fails after every connector declined retryably, with one attempt per connector', async () => {
    const res = await charge(tenant, cardCharge(await cardToken(tenant, CARDS.doNotHonor)));
    expect(res.status, res.text).to.equal(201);
    expect(res.body.data.status).to.equal('failed');
    expect(res.body.data.timeline.map((a: any) => a.attempt_number)).to.deep.equal([1, 2, 3]);
  });

  it('pre-authorizes with capture false: 201 pre_authorized, nothing captured', async () => {
    const res = await charge(tenant, cardCharge(await cardToken(tenant), { capture: false }));
    expect(res.status, res.text).to.equal(201);
    expect(res.body.data).to.include({ status: 'pre_authorized', amount_authorized: 1500, amount_captured: 0 });
  });

  it('a provider timeout moves on to the next connector (network_error), and the charge completes there', async function () {
    this.timeout(60_000);
    await override(connectors[0], 'timeout', 1);
    const res = await charge(tenant, cardCharge(await cardToken(tenant)));
    expect(res.status, res.text).to.equal(201);
    const tx = res.body.data;
    expect(tx.status).to.equal('authorized');
    expect(tx.timeline.map((a: any) => [a.status, a.error_category])).to.deep.equal([
      ['error', 'network_error'],
      ['success', null],
    ]);
    const attempts = await api.get(`/transactions/${tx.id}/attempts`, { key: tenant.merchant_secret_key });
    expect(attempts.status).to.equal(200);
    expect(attempts.body.data[0]).to.include({ outcome: 'network_error', attempt_number: 1 });
  });
});
