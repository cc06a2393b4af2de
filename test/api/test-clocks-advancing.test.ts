/**
 * Test clocks while an advance is under way, through the HTTP API on the real stack: a renewal the
 * provider holds (its settlement checks run on the clock's time, so the advance ends while it is pending), operations
 * sent during an advance, and an advance whose workflow cannot be started (the clock goes back to where it was) or
 * whose start was refused although it happened (the next advance must not wait forever). A refused advance leaves
 * no record in the merchant's activity.
 */
import { expect } from 'chai';
import { startApi, type RunningApi } from '../../api/server';
import { startTestClockAdvance } from '../../api/temporal/test-clocks';
import { testClockAdvanceWorkflowId } from '../../workflows/lib/test-clock-signals';
import { createTenant, type Tenant } from '../helpers/factories';
import { api } from '../helpers/http';
import { sellableOffer } from '../helpers/checkout';
import { createOffer } from '../helpers/catalog';
import { control } from '../helpers/sandbox';
import { stack } from '../helpers/stack';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy';
import { cascade, override, providerReferenceOf, type CascadeConnector } from '../helpers/transactions';
import { expectError } from '../helpers/envelope';
import { activityOf } from '../helpers/merchants';
import { advance, chargesOf, createClock, subscribeOnClock, subscriptionOf } from '../helpers/test-clocks';

const JAN_31 = '2027-01-31T10:00:00.000Z';
const A_YEAR_LATER = '2028-01-31T10:00:00.000Z';

/** Polls `read` until `done` holds (webhooks and workflows run on their own), gently: a key has 100 requests a minute. */
async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`still not there: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 750));
  }
}

async function clockOf(tenant: Tenant, id: string) {
  const res = await api.get(`/test-clocks/${id}`, { key: tenant.merchant_secret_key });
  expect(res.status, res.text).to.equal(200);
  return res.body.data;
}

/** The test_clock.advanced records of the merchant's activity record. */
const advancesRecorded = async (tenant: Tenant) =>
  (await activityOf(tenant.merchant_id)).filter((record) => record.action === 'test_clock.advanced').length;

/** GET …/advance until the clock is ready (the advance was asked for elsewhere). */
const readyAgain = (tenant: Tenant, id: string) =>
  until(
    () => clockOf(tenant, id),
    (clock) => clock.status === 'ready',
    180_000,
  );

async function transitionsOf(tenant: Tenant, subscriptionId: string): Promise<any[]> {
  const res = await api.get(`/merchants/${tenant.merchant_id}/subscriptions/${subscriptionId}/transitions`, {
    key: tenant.merchant_secret_key,
  });
  expect(res.status, res.text).to.equal(200);
  return res.body.data;
}

/** The subscriptions of the merchant's subscription.renewed events, as each event carried it. */
async function renewedEvents(tenant: Tenant): Promise<any[]> {
  const res = await api.get('/events?type=subscription.renewed&limit=100', { key: tenant.merchant_secret_key });
  expect(res.status, res.text).to.equal(200);
  return res.body.data.map((event: any) => event.data.object);
}

const renewedPeriodStarts = async (tenant: Tenant) =>
  (await renewedEvents(tenant)).map((object) => Date.parse(object.current_period_start));

/**
 * Waits until the advance is under way (the subscription renewed at least once on it) or already over, so an
 * operation sent next usually lands in the middle; the assertions hold wherever it lands.
 */
const underWay = (tenant: Tenant, clockId: string, subscriptionId: string) =>
  until(
    async () => [await clockOf(tenant, clockId), await subscriptionOf(tenant, subscriptionId)],
    ([clock, sub]) => clock.status === 'ready' || sub.cycles_completed >= 2,
    180_000,
  );

describe('Test clocks while advancing', function () {
  this.timeout(300_000);
  let tenant: Tenant;
  let connector: CascadeConnector;
  beforeEach(async () => {
    tenant = await createTenant();
    [connector] = await cascade(tenant, ['provider_a']);
  });

  it('a renewal the provider holds is re-read on clock time: the advance ends while it is pending, nothing else is billed, and its settlement completes the cycle', async () => {
    const clock = await createClock(tenant, JAN_31);
    const { offer } = await sellableOffer(tenant);
    const { sub, customerId } = await subscribeOnClock(tenant, clock.id, offer.id);
    await override(connector, 'review', 1);

    // The Feb 28 renewal is held for review; its settlement checks (1, 5, 15, 60 minutes, then every 6 hours)
    // run on the clock, so the advance ends without waiting real hours.
    await advance(tenant, clock.id, '2027-02-28T12:00:00.000Z');
    let charges = await chargesOf(tenant, customerId);
    expect(charges.map((tx) => tx.status)).to.deep.equal(['authorized', 'pending']);
    expect(await subscriptionOf(tenant, sub.id)).to.include({
      status: 'active',
      cycles_completed: 1,
      dunning_attempt_count: 0,
      dunning_started_at: null,
    });
    // Further on, still pending: a week of six-hourly checks, no dunning, no second charge.
    await advance(tenant, clock.id, '2027-03-07T10:00:00.000Z');
    expect((await chargesOf(tenant, customerId)).map((tx) => tx.status)).to.deep.equal(['authorized', 'pending']);
    expect(await subscriptionOf(tenant, sub.id)).to.include({ status: 'active', cycles_completed: 1 });

    // The provider approves it: the settlement path tells the subscription, which completes the cycle at once
    // (at the clock's time, without an advance): the period the held charge paid for.
    const held = charges[1];
    const settled = await control('POST', `/payments/${await providerReferenceOf(tenant, held.id)}/settle`);
    expect(settled.status, JSON.stringify(settled.body)).to.be.lessThan(300);
    const after = await until(
      () => subscriptionOf(tenant, sub.id),
      (s) => s.cycles_completed === 2,
    );
    expect(after).to.include({
      status: 'active',
      current_period_start: '2027-02-28T10:00:00.000Z',
      current_period_end: '2027-03-31T10:00:00.000Z',
      dunning_attempt_count: 0,
    });
    charges = await chargesOf(tenant, customerId);
    expect(charges.map((tx) => [tx.id, tx.status])).to.deep.equal([
      [charges[0].id, 'authorized'],
      [held.id, 'authorized'],
    ]);
    // And the next renewal comes on its own date.
    await advance(tenant, clock.id, '2027-04-01T10:00:00.000Z');
    expect(await subscriptionOf(tenant, sub.id)).to.include({
      cycles_completed: 3,
      current_period_start: '2027-03-31T10:00:00.000Z',
    });
    expect((await chargesOf(tenant, customerId)).map((tx) => tx.status)).to.deep.equal(Array(3).fill('authorized'));
  });

  it('a pause sent while the clock advances happens at the instant the subscription has reached; nothing is billed after it, the advance ends, and a resumption bills from the clock instant', async () => {
    const key = tenant.merchant_secret_key;
    const clock = await createClock(tenant, JAN_31);
    const { offer } = await sellableOffer(tenant);
    const { sub, customerId } = await subscribeOnClock(tenant, clock.id, offer.id);
    const asked = await api.post(`/test-clocks/${clock.id}/advance`, { key, body: { frozen_time: A_YEAR_LATER } });
    expect(asked.status, asked.text).to.equal(200);
    await underWay(tenant, clock.id, sub.id);
    const paused = await api.post(`/merchants/${tenant.merchant_id}/subscriptions/${sub.id}/pause`, {
      key,
      body: { reason: 'during the advance' },
    });
    expect(paused.status, paused.text).to.equal(200);
    expect(paused.body.data.status).to.equal('paused');
    expect(await readyAgain(tenant, clock.id)).to.include({ frozen_time: A_YEAR_LATER });

    const pause = (await transitionsOf(tenant, sub.id)).find((t) => t.transition_type === 'pause');
    const pausedAt = Date.parse(pause.created_at);
    expect(pausedAt, 'on the clock, between where it was and where it went')
      .to.be.at.least(Date.parse(JAN_31))
      .and.at.most(Date.parse(A_YEAR_LATER));
    // Every renewal before the pause, none after; one charge per cycle.
    const renewed = await renewedPeriodStarts(tenant);
    expect(renewed.filter((start) => start > pausedAt)).to.deep.equal([]);
    const after = await subscriptionOf(tenant, sub.id);
    expect(after.status).to.equal('paused');
    expect(after.cycles_completed).to.equal(1 + renewed.length);
    const charges = await chargesOf(tenant, customerId);
    expect(charges.map((tx) => tx.status)).to.deep.equal(Array(1 + renewed.length).fill('authorized'));
    // Paused, it is not billed on later advances either.
    await advance(tenant, clock.id, '2028-04-30T10:00:00.000Z');
    expect(await chargesOf(tenant, customerId)).to.have.length(charges.length);

    // Resumed at the clock's time, past its due date: billed at once from that instant, then on its new dates.
    const resumed = await api.post(`/merchants/${tenant.merchant_id}/subscriptions/${sub.id}/resume`, {
      key,
      body: {},
    });
    expect(resumed.status, resumed.text).to.equal(200);
    const resume = (await transitionsOf(tenant, sub.id)).find((t) => t.transition_type === 'resume');
    expect(resume.created_at).to.equal('2028-04-30T10:00:00.000Z');
    expect(
      await until(
        () => subscriptionOf(tenant, sub.id),
        (s) => s.cycles_completed === after.cycles_completed + 1,
      ),
    ).to.include({
      status: 'active',
      current_period_start: '2028-04-30T10:00:00.000Z',
      next_billing_at: '2028-05-30T10:00:00.000Z',
    });
    await advance(tenant, clock.id, '2028-06-01T10:00:00.000Z');
    expect(await subscriptionOf(tenant, sub.id)).to.include({
      cycles_completed: after.cycles_completed + 2,
      current_period_start: '2028-05-30T10:00:00.000Z',
    });
    expect(await chargesOf(tenant, customerId)).to.have.length(charges.length + 2);
  });

  it('a cancellation (now and at period end) and an offer change sent while the clock advances are applied on the clock; the advance ends', async () => {
    const key = tenant.merchant_secret_key;
    const clock = await createClock(tenant, JAN_31);
    const { offer } = await sellableOffer(tenant);
    const first = await subscribeOnClock(tenant, clock.id, offer.id);
    const { offer: second } = await sellableOffer(tenant);
    const other = await subscribeOnClock(tenant, clock.id, second.id);
    const { offer: third } = await sellableOffer(tenant);
    const changing = await subscribeOnClock(tenant, clock.id, third.id);
    const { offer: bigger } = await createOffer(tenant.merchant_id, {
      familyId: changing.sub.product_family_id,
      prices: [{ currency: 'USD', amount: 1999, isDefault: true }],
    });
    const asked = await api.post(`/test-clocks/${clock.id}/advance`, { key, body: { frozen_time: A_YEAR_LATER } });
    expect(asked.status, asked.text).to.equal(200);
    await underWay(tenant, clock.id, first.sub.id);
    const path = `/merchants/${tenant.merchant_id}/subscriptions`;
    const [cancelled, scheduled, changed] = await Promise.all([
      api.post(`${path}/${first.sub.id}/cancel`, { key, body: { at_period_end: false } }),
      api.post(`${path}/${other.sub.id}/cancel`, { key, body: { at_period_end: true } }),
      api.post(`${path}/${changing.sub.id}/change-offer`, { key, body: { to_offer_id: bigger.id } }),
    ]);
    expect(cancelled.status, cancelled.text).to.equal(200);
    expect(scheduled.status, scheduled.text).to.equal(200);
    expect(changed.status, changed.text).to.equal(200);
    await readyAgain(tenant, clock.id);

    // Cancelled now: at the clock instant it had reached, never billed after.
    const now = await subscriptionOf(tenant, first.sub.id);
    expect(now.status).to.equal('cancelled');
    const cancelledAt = Date.parse(now.cancelled_at);
    expect(cancelledAt).to.be.at.least(Date.parse(JAN_31)).and.at.most(Date.parse(A_YEAR_LATER));
    expect(await chargesOf(tenant, first.customerId)).to.have.length(now.cycles_completed);
    // At period end: the advance carried on to that period's end, and the subscription was cancelled there.
    const atEnd = await subscriptionOf(tenant, other.sub.id);
    expect(atEnd).to.include({ status: 'cancelled', cancelled_at: atEnd.current_period_end });
    expect(Date.parse(atEnd.cancelled_at)).to.be.at.most(Date.parse(A_YEAR_LATER));
    expect(await chargesOf(tenant, other.customerId)).to.have.length(atEnd.cycles_completed);
    // The offer change: at a clock instant; every renewal before it at the old price, every one after at the new.
    const change = (await transitionsOf(tenant, changing.sub.id)).find((t) => t.transition_type !== 'creation');
    const changedAt = Date.parse(change.created_at);
    expect(changedAt).to.be.at.least(Date.parse(JAN_31)).and.at.most(Date.parse(A_YEAR_LATER));
    expect(await subscriptionOf(tenant, changing.sub.id)).to.include({
      status: 'active',
      current_offer_id: bigger.id,
      current_amount: 1999,
      current_period_end: '2028-02-29T10:00:00.000Z',
    });
    const renewals = (await renewedEvents(tenant)).filter((object) => object.id === changing.sub.id);
    for (const renewal of renewals) {
      const startedAt = Date.parse(renewal.current_period_start);
      if (startedAt < changedAt) expect(renewal.current_amount, renewal.current_period_start).to.equal(999);
      if (startedAt > changedAt) expect(renewal.current_amount, renewal.current_period_start).to.equal(1999);
    }
  });

  it('DELETE while the clock advances cancels its subscriptions at the instant each reached, bills nothing after, and the advance workflow ends', async () => {
    const key = tenant.merchant_secret_key;
    const clock = await createClock(tenant, JAN_31);
    const { offer } = await sellableOffer(tenant);
    const { sub, customerId } = await subscribeOnClock(tenant, clock.id, offer.id);
    const asked = await api.post(`/test-clocks/${clock.id}/advance`, { key, body: { frozen_time: A_YEAR_LATER } });
    expect(asked.status, asked.text).to.equal(200);
    await underWay(tenant, clock.id, sub.id);
    const deleted = await api.delete(`/test-clocks/${clock.id}`, { key });
    expect(deleted.status, deleted.text).to.equal(204);
    expect((await api.get(`/test-clocks/${clock.id}`, { key })).status).to.equal(404);
    // The advance does not wait for ever on a subscription that ended: its workflow completes.
    const handle = stack().api.deps.temporal.client.workflow.getHandle(
      testClockAdvanceWorkflowId(clock.id, A_YEAR_LATER),
    );
    await handle.result();

    const ended = await subscriptionOf(tenant, sub.id);
    expect(ended).to.include({ status: 'cancelled', cancellation_reason: 'test_clock_deleted' });
    expect(Date.parse(ended.cancelled_at)).to.be.at.least(Date.parse(JAN_31)).and.at.most(Date.parse(A_YEAR_LATER));
    const renewed = await renewedPeriodStarts(tenant);
    expect(renewed.filter((start) => start > Date.parse(ended.cancelled_at))).to.deep.equal([]);
    expect(await chargesOf(tenant, customerId)).to.have.length(ended.cycles_completed);
    expect((await api.get(`/customers/${customerId}`, { key })).status).to.equal(200);
  });

  it('when the advance workflow cannot be started the request is a 502 and the clock is back where it was; asking again works', async () => {
    const { config } = stack();
    const proxy: TcpProxy = await startTcpProxy(Number(config.temporal.address.split(':').pop()));
    let app: RunningApi | undefined;
    try {
      app = await startApi({ ...config, temporal: { ...config.temporal, address: `127.0.0.1:${proxy.port}` } }, 0);
      const clock = await createClock(tenant, JAN_31);
      const { offer } = await sellableOffer(tenant);
      const { sub, customerId } = await subscribeOnClock(tenant, clock.id, offer.id);
      await proxy.close();
      const refused = await api.post(`/test-clocks/${clock.id}/advance`, {
        key: tenant.merchant_secret_key,
        body: { frozen_time: '2027-02-28T12:00:00.000Z' },
        baseUrl: app.url,
      });
      expectError(refused, 502, 'external_service_error', 'WORKFLOW_SERVICE_UNAVAILABLE');
      expect(await clockOf(tenant, clock.id)).to.include({ status: 'ready', frozen_time: JAN_31 });
      expect(await subscriptionOf(tenant, sub.id)).to.include({ cycles_completed: 1 });
      expect(await advancesRecorded(tenant)).to.equal(0);

      await advance(tenant, clock.id, '2027-02-28T12:00:00.000Z');
      expect(await subscriptionOf(tenant, sub.id)).to.include({ cycles_completed: 2 });
      expect(await chargesOf(tenant, customerId)).to.have.length(2);
      expect(await advancesRecorded(tenant)).to.equal(1);
    } finally {
      await app?.stop();
      await proxy.close();
    }
  });

  it('an advance that ran although its start was answered with an error (clock rolled back) does not stall the next one', async () => {
    const clock = await createClock(tenant, JAN_31);
    const { offer } = await sellableOffer(tenant);
    const { sub, customerId } = await subscribeOnClock(tenant, clock.id, offer.id);
    // What an answer lost on the way back leaves: the workflow ran to Apr 1 while the row stayed at Jan 31.
    const client = stack().api.deps.temporal.client;
    await startTestClockAdvance(client, clock.id, '2027-04-01T10:00:00.000Z');
    await client.workflow.getHandle(testClockAdvanceWorkflowId(clock.id, '2027-04-01T10:00:00.000Z')).result();
    expect(await subscriptionOf(tenant, sub.id)).to.include({ cycles_completed: 3 });
    expect(await clockOf(tenant, clock.id)).to.include({ status: 'ready', frozen_time: JAN_31 });

    // Asked again for an earlier time: the subscription is already past it, so it is idle there at once.
    await advance(tenant, clock.id, '2027-03-01T10:00:00.000Z');
    // And to a later one: it carries on from where it stands, nothing billed twice.
    await advance(tenant, clock.id, '2027-05-01T10:00:00.000Z');
    expect(await subscriptionOf(tenant, sub.id)).to.include({
      cycles_completed: 4,
      current_period_start: '2027-04-30T10:00:00.000Z',
    });
    expect(await chargesOf(tenant, customerId)).to.have.length(4);
  });
});
