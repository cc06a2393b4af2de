/**
 * "The next renewal fails": on a subscription whose customer is on a test clock, POST
 * /test-clocks/:id/subscriptions/:sub/fail-next-renewal makes the next renewal charge decline once, at the real
 * (sandbox) provider, with the chosen failure_code; the retry after it is charged as usual. Subscriptions that are
 * not on the clock are refused, and a refused request arms nothing. Arming is an administrative action: it is in the
 * merchant's activity record with its actor, the subscription and the failure_code (a refused arm records nothing).
 */
import { expect } from 'chai';
import { createTenant, type Tenant } from '../helpers/factories';
import { api } from '../helpers/http';
import { sellableOffer } from '../helpers/checkout';
import { expectError } from '../helpers/envelope';
import { cascade } from '../helpers/transactions';
import { advance, chargesOf, createClock, subscribeOnClock, subscriptionOf } from '../helpers/test-clocks';
import { keyId } from '../helpers/merchants';

const JAN_31 = '2027-01-31T10:00:00.000Z';
const failNext = (tenant: Tenant, clockId: string, subId: string, body: Record<string, unknown> = {}) =>
  api.post(`/test-clocks/${clockId}/subscriptions/${subId}/fail-next-renewal`, {
    key: tenant.merchant_secret_key,
    body,
  });

describe('Test clocks: the next renewal fails on demand', () => {
  let tenant: Tenant;
  beforeEach(async () => {
    tenant = await createTenant();
    await cascade(tenant, ['provider_a']);
  });

  it('the armed renewal declines once with insufficient_funds (the default) into dunning, and the retry a day later succeeds', async () => {
    const clock = await createClock(tenant, JAN_31);
    const { offer } = await sellableOffer(tenant);
    const { sub, customerId } = await subscribeOnClock(tenant, clock.id, offer.id);
    const armed = await failNext(tenant, clock.id, sub.id);
    expect(armed.status, armed.text).to.equal(200);
    expect(armed.body.data).to.deep.equal({
      subscription_id: sub.id,
      test_clock_id: clock.id,
      failure_code: 'insufficient_funds',
    });

    await advance(tenant, clock.id, '2027-02-28T12:00:00.000Z');
    expect(await subscriptionOf(tenant, sub.id)).to.include({ status: 'dunning' });
    const [, renewal] = await chargesOf(tenant, customerId);
    expect(renewal).to.include({ status: 'failed', failure_code: 'insufficient_funds' });

    await advance(tenant, clock.id, '2027-03-01T12:00:00.000Z');
    expect(await subscriptionOf(tenant, sub.id)).to.include({ status: 'active' });
    expect((await chargesOf(tenant, customerId)).map((tx) => tx.status)).to.deep.equal([
      'authorized',
      'failed',
      'authorized',
    ]);
  });

  it('armed after a renewal was charged, the following renewal declines', async () => {
    const clock = await createClock(tenant, JAN_31);
    const { offer } = await sellableOffer(tenant);
    const { sub, customerId } = await subscribeOnClock(tenant, clock.id, offer.id);
    await advance(tenant, clock.id, '2027-03-01T10:00:00.000Z');
    expect((await failNext(tenant, clock.id, sub.id)).status).to.equal(200);
    await advance(tenant, clock.id, '2027-03-31T12:00:00.000Z');
    expect(await subscriptionOf(tenant, sub.id)).to.include({ status: 'dunning' });
    expect((await chargesOf(tenant, customerId)).map((tx) => tx.status)).to.deep.equal([
      'authorized',
      'authorized',
      'failed',
    ]);
  });

  it("the failure_code is the caller's: do_not_honor declines the renewal with do_not_honor", async () => {
    const clock = await createClock(tenant, JAN_31);
    const { offer } = await sellableOffer(tenant);
    const { sub, customerId } = await subscribeOnClock(tenant, clock.id, offer.id);
    const armed = await failNext(tenant, clock.id, sub.id, { failure_code: 'do_not_honor' });
    expect(armed.status, armed.text).to.equal(200);
    await advance(tenant, clock.id, '2027-02-28T12:00:00.000Z');
    const [, renewal] = await chargesOf(tenant, customerId);
    expect(renewal).to.include({ status: 'failed', failure_code: 'do_not_honor' });
  });

  it('a subscription not on the clock is refused with 409 SUBSCRIPTION_NOT_ON_TEST_CLOCK, and its renewal is charged as usual', async () => {
    const clock = await createClock(tenant, JAN_31);
    const { offer } = await sellableOffer(tenant);
    const realTime = await subscribeOnClock(tenant, null, offer.id);
    expectError(
      await failNext(tenant, clock.id, realTime.sub.id),
      409,
      'conflict_error',
      'SUBSCRIPTION_NOT_ON_TEST_CLOCK',
    );

    const other = await createClock(tenant, JAN_31);
    const { sub, customerId } = await subscribeOnClock(tenant, other.id, offer.id);
    expectError(await failNext(tenant, clock.id, sub.id), 409, 'conflict_error', 'SUBSCRIPTION_NOT_ON_TEST_CLOCK');
    await advance(tenant, other.id, '2027-02-28T12:00:00.000Z');
    expect((await chargesOf(tenant, customerId)).map((tx) => tx.status)).to.deep.equal(['authorized', 'authorized']);
  });

  it('an unknown failure_code is a 400 naming the field; an unknown subscription a 404', async () => {
    const clock = await createClock(tenant, JAN_31);
    const { offer } = await sellableOffer(tenant);
    const { sub } = await subscribeOnClock(tenant, clock.id, offer.id);
    const bad = await failNext(tenant, clock.id, sub.id, { failure_code: 'no_route' });
    expectError(bad, 400);
    expect(bad.body.error.details).to.have.property('failure_code');
    expectError(await failNext(tenant, clock.id, 'sub_doesnotexist0000000000'), 404);
  });

  it('arming is in the activity record with its actor, the clock, the subscription and the failure_code; a refused arm records nothing', async () => {
    const clock = await createClock(tenant, JAN_31);
    const { offer } = await sellableOffer(tenant);
    const { sub } = await subscribeOnClock(tenant, clock.id, offer.id);
    const realTime = await subscribeOnClock(tenant, null, offer.id);
    expect((await failNext(tenant, clock.id, realTime.sub.id)).status).to.equal(409);
    expect((await failNext(tenant, clock.id, sub.id, { failure_code: 'expired_card' })).status).to.equal(200);

    const activity = await api.get(`/merchants/${tenant.merchant_id}/activity`, {
      key: tenant.organization_secret_key,
      query: { limit: 100 },
    });
    expect(activity.status, activity.text).to.equal(200);
    const armed = activity.body.data.filter((record: any) => record.action === 'test_clock.renewal_failure_armed');
    expect(armed).to.have.length(1);
    expect(armed[0]).to.deep.include({
      merchant_id: tenant.merchant_id,
      actor: { type: 'api_key', id: await keyId(tenant.merchant_secret_key) },
      changes: { test_clock_id: clock.id, subscription_id: sub.id, failure_code: 'expired_card' },
    });
  });
});
