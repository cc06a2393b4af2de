/**
 * Live and test never share a plan: a charge's mode is fixed before routing (a customer on a test clock makes a
 * test charge; otherwise the plan's first connector decides) and every connector of the other mode is skipped as
 * test_mode_mismatch, in the charge's plan, its cascade and in simulate. A test-mode connector approves any card in
 * the sandbox, so a live charge that reached one would be `authorized` with no money collected.
 */
import { expect } from 'chai';
import { api } from '../helpers/http';
import { createTenant, customerInput, type Tenant } from '../helpers/factories';
import { ledger } from '../helpers/sandbox';
import { createClock } from '../helpers/test-clocks';
import { cardCharge, cardToken, charge, override } from '../helpers/transactions';
import { modeCascade, routingOf, type ModeConnector } from '../helpers/connector-modes';

const authorizeCalls = async (reference: string) =>
  (await ledger({ reference })).filter((entry) => entry.operation === 'authorize');

const skippedAs = (decision: any, reason: string) =>
  decision.skipped.filter((skip: any) => skip.reason === reason).map((skip: any) => skip.connector_id);

describe('POST /api/v1/transactions — live and test never share a plan', () => {
  let tenant: Tenant;

  beforeEach(async () => {
    tenant = await createTenant();
  });

  const pay = async (extra: Record<string, unknown> = {}) => {
    const res = await charge(tenant, cardCharge(await cardToken(tenant), extra));
    expect(res.status, res.text).to.equal(201);
    return res.body.data;
  };

  it('a live charge never reaches a test-mode connector: the live connector fails retryably, the charge fails, the test connector is skipped and never called', async () => {
    const { connectors } = await modeCascade(tenant, [{ live: true }, { live: false }]);
    const [live, test] = connectors;
    const tx = await pay();
    expect(tx).to.include({ status: 'failed', amount_authorized: 0, amount_captured: 0 });
    expect(tx.timeline.map((a: any) => [a.connector_id, a.error_category])).to.deep.equal([[live.id, 'network_error']]);
    expect(skippedAs(await routingOf(tenant, tx.id), 'test_mode_mismatch')).to.deep.equal([test.id]);
    expect(await authorizeCalls(tx.id)).to.deep.equal([]);
  });

  it("a live connector's open circuit does not make the charge a test charge: it fails with no_route and nothing called", async () => {
    const { connectors } = await modeCascade(tenant, [{ live: true }, { live: false }]);
    const [live, test] = connectors;
    await openCircuit(tenant, live);
    const tx = await pay();
    expect(tx).to.include({ status: 'failed', failure_code: 'no_route', amount_captured: 0 });
    expect(tx.timeline).to.deep.equal([]);
    const decision = await routingOf(tenant, tx.id);
    expect(skippedAs(decision, 'circuit_open')).to.deep.equal([live.id]);
    expect(skippedAs(decision, 'test_mode_mismatch')).to.deep.equal([test.id]);
    expect(await authorizeCalls(tx.id)).to.deep.equal([]);
  });

  it('a test charge never reaches a live connector: when the test-mode connector fails retryably the charge fails without calling the live one', async () => {
    const { connectors } = await modeCascade(tenant, [{ live: false }, { live: true }]);
    const [test, live] = connectors;
    await override(test, 'processing_error');
    const tx = await pay();
    expect(tx.status).to.equal('failed');
    expect(tx.timeline.map((a: any) => [a.connector_id, a.error_category])).to.deep.equal([
      [test.id, 'processing_error'],
    ]);
    expect(skippedAs(await routingOf(tenant, tx.id), 'test_mode_mismatch')).to.deep.equal([live.id]);
  });

  it("a customer on a test clock makes a test charge even when the plan's first connector is live: charged on the test-mode one, the live one skipped", async () => {
    const { connectors } = await modeCascade(tenant, [{ live: true }, { live: false }]);
    const [live, test] = connectors;
    const clock = await createClock(tenant, '2027-01-10T10:00:00Z');
    const customer = await api.post('/customers', {
      key: tenant.merchant_secret_key,
      body: customerInput({ test_clock_id: clock.id }),
    });
    expect(customer.status, customer.text).to.equal(201);
    const tx = await pay({ customer_id: customer.body.data.id });
    expect(tx).to.include({ status: 'authorized', amount_captured: 1500 });
    expect(tx.timeline.map((a: any) => [a.connector_id, a.status])).to.deep.equal([[test.id, 'success']]);
    expect(skippedAs(await routingOf(tenant, tx.id), 'test_mode_mismatch')).to.deep.equal([live.id]);
  });

  it('simulate shows the same plan: the test-mode connector behind a live one is skipped as test_mode_mismatch', async () => {
    const { profileId, connectors } = await modeCascade(tenant, [{ live: true }, { live: false }]);
    const [live, test] = connectors;
    const res = await api.post(`/merchants/${tenant.merchant_id}/routing-profiles/${profileId}/simulate`, {
      key: tenant.merchant_secret_key,
      body: { payment_method: 'credit_card', currency: 'USD', amount: 1500, card_brand: 'visa' },
    });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.plan.map((step: any) => step.merchant_connector_id)).to.deep.equal([live.id]);
    expect(res.body.skipped).to.deep.include({
      merchant_connector_id: test.id,
      node_id: null,
      reason: 'test_mode_mismatch',
    });
  });
});

/** Opens the connector's circuit by hand (the merchant's circuit control), so the plan skips it as circuit_open. */
async function openCircuit(tenant: Tenant, connector: ModeConnector): Promise<void> {
  const res = await api.post(`/merchants/${tenant.merchant_id}/connectors/${connector.id}/circuit`, {
    key: tenant.merchant_secret_key,
    body: { state: 'open' },
  });
  expect(res.status, res.text).to.equal(200);
}
