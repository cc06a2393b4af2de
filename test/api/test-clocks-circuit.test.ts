/**
 * Test clocks meet the circuit breaker, through the HTTP API on the real stack: the circuit protects the providers,
 * not our books. A renewal that falls due on the clock while every connector's circuit is open is refused without a
 * provider call (no route) and is no dunning step; the circuit's cool-down runs in real time while the clock jumps,
 * so the refused renewal is tried again once per advance at most (never a burst within one), and paid once the
 * circuit closes, on its own calendar.
 */
import { expect } from 'chai';
import { createTenant, type Tenant } from '../helpers/factories';
import { api } from '../helpers/http';
import { sellableOffer } from '../helpers/checkout';
import { connectorsPath } from '../helpers/connectors';
import { cascade, type CascadeConnector } from '../helpers/transactions';
import { advance, chargesOf, createClock, subscribeOnClock, subscriptionOf } from '../helpers/test-clocks';

const JAN_10 = '2027-01-10T10:00:00.000Z';

describe('Test clocks: renewals while every circuit is open', () => {
  let tenant: Tenant;
  let connector: CascadeConnector;
  beforeEach(async () => {
    tenant = await createTenant();
    [connector] = await cascade(tenant, ['provider_a']);
  });

  async function setCircuit(state: 'open' | 'closed') {
    const key = tenant.merchant_secret_key;
    const path = `${connectorsPath(tenant.merchant_id)}/${connector.id}`;
    // An hour of cool-down (real time): the circuit stays open for the whole test unless closed by hand.
    const config = { circuit_breaker: { failure_threshold: 1, cooldown_seconds: 3600 } };
    const patched = await api.patch(path, { key, body: { config } });
    expect(patched.status, patched.text).to.equal(200);
    const set = await api.post(`${path}/circuit`, { key, body: { state } });
    expect(set.status, set.text).to.equal(200);
  }

  it('a renewal due while the circuit is open waits without dunning, is tried once per advance, and is paid after the circuit closes', async () => {
    const clock = await createClock(tenant, JAN_10);
    const { offer } = await sellableOffer(tenant);
    const { sub, customerId } = await subscribeOnClock(tenant, clock.id, offer.id);
    await setCircuit('open');

    await advance(tenant, clock.id, '2027-02-11T10:00:00.000Z');
    expect(await subscriptionOf(tenant, sub.id)).to.include({
      status: 'active',
      dunning_attempt_count: 0,
      dunning_started_at: null,
      cycles_completed: 1,
    });
    const refused = await chargesOf(tenant, customerId);
    expect(refused.map((tx) => [tx.status, tx.failure_code])).to.deep.equal([
      ['authorized', null],
      ['failed', 'no_route'],
    ]);

    // The next advance retries it once: the circuit is still open (its cool-down has not passed in real time).
    await advance(tenant, clock.id, '2027-02-11T11:00:00.000Z');
    expect((await chargesOf(tenant, customerId)).map((tx) => tx.status)).to.deep.equal([
      'authorized',
      'failed',
      'failed',
    ]);
    expect((await subscriptionOf(tenant, sub.id)).status).to.equal('active');

    await setCircuit('closed');
    await advance(tenant, clock.id, '2027-02-12T10:00:00.000Z');
    expect(await subscriptionOf(tenant, sub.id)).to.include({
      status: 'active',
      cycles_completed: 2,
      dunning_attempt_count: 0,
      current_period_start: '2027-02-10T10:00:00.000Z',
    });
    expect((await chargesOf(tenant, customerId)).map((tx) => tx.status)).to.deep.equal([
      'authorized',
      'failed',
      'failed',
      'authorized',
    ]);
    const events = await api.get(`/events?type=subscription.dunning&limit=100`, { key: tenant.merchant_secret_key });
    expect(events.status, events.text).to.equal(200);
    expect(events.body.data, 'no subscription.dunning for our own outage').to.deep.equal([]);
  });
});
