/**
 * Dunning is for the card's declines only (time-skipping test server, the real charge cascade and the sandbox): a
 * renewal refused for a reason that is not the card's — every connector's circuit open (no route), the provider's
 * processing error, a charge that never opened its transaction — is no dunning step. The subscription stays where
 * it was, nothing counts against its retries, no subscription.dunning is sent, and the renewal is tried again soon.
 */
import { expect } from 'chai';
import { viewQuery } from '../../workflows/subscription.shared';
import { createSubscriptionActivities } from '../../activities/subscriptions';
import { api } from '../helpers/http';
import { connectorsPath } from '../helpers/connectors';
import { sleepPast } from '../helpers/time-skipping';
import { useSubscriptionWorkflows } from '../helpers/subscription-workflows';
import { stack } from '../helpers/stack';
import { override } from '../helpers/transactions';
import { accountOf, ledger } from '../helpers/sandbox';
import {
  renewalCharges,
  storedSubscription,
  subscribed,
  subscriptionEvents,
  type Subscribed,
} from '../helpers/subscriptions';

const HOUR = 3_600_000;

describe('Renewals refused for reasons that are not the card’s (time-skipping test server)', () => {
  const { server, serverNow, worker, start } = useSubscriptionWorkflows('test-subscription-outage-renewals');

  /** Opens or closes the connector's circuit by hand; its cool-down (real time) outlasts the test. */
  async function circuit(sub: Subscribed, state: 'open' | 'closed') {
    const key = sub.tenant.merchant_secret_key;
    const path = `${connectorsPath(sub.tenant.merchant_id)}/${sub.connector.id}`;
    const config = { circuit_breaker: { failure_threshold: 5, cooldown_seconds: 3600 } };
    const patched = await api.patch(path, { key, body: { config } });
    expect(patched.status, patched.text).to.equal(200);
    const set = await api.post(`${path}/circuit`, { key, body: { state } });
    expect(set.status, set.text).to.equal(200);
  }
  const authorizations = async (sub: Subscribed) => {
    const account = await accountOf('provider_a', sub.connector.credentials);
    return (await ledger({ provider: 'provider_a', account, operation: 'authorize' })).filter((e) => !e.replayed);
  };

  it('a renewal due while every circuit is open is no dunning step: it is tried again soon and paid once the circuit closes', async function () {
    this.timeout(90_000);
    const sub = await subscribed(await serverNow());
    await circuit(sub, 'open');
    const handle = await start(sub);
    await (
      await worker()
    ).runUntil(async () => {
      await sleepPast(server.env, sub.state.periodEnd, 30_000);
      const [refused] = await renewalCharges(sub);
      expect([refused.status, refused.failureCode]).to.deep.equal(['failed', 'no_route']);
      const stored = await storedSubscription(sub.state.subscriptionId);
      expect([stored.status, stored.dunningAttemptCount, stored.dunningStartedAt]).to.deep.equal(['active', 0, null]);
      const view = await handle.query(viewQuery);
      expect(view.nextWakeReason).to.equal('renewal');
      expect(Date.parse(view.nextWakeAt!) - Date.parse(sub.state.periodEnd), 'tried again in a minute').to.be.within(
        30_000,
        2 * 60_000,
      );
      // Still open an hour on: each retry is refused the same way, and none is a dunning step.
      await server.env.sleep(HOUR);
      expect((await storedSubscription(sub.state.subscriptionId)).status).to.equal('active');
      await circuit(sub, 'closed');
      await server.env.sleep(6 * HOUR);
    });
    const stored = await storedSubscription(sub.state.subscriptionId);
    expect([stored.status, stored.cyclesCompleted, stored.dunningAttemptCount]).to.deep.equal(['active', 2, 0]);
    expect(stored.currentPeriodStart.toISOString(), 'the calendar is kept').to.equal(sub.state.periodEnd);
    const types = (await subscriptionEvents(sub.tenant.merchant_id)).map(([type]) => type);
    expect(types).to.deep.equal(['subscription.created', 'subscription.renewed']);
    const charges = await renewalCharges(sub);
    expect(
      charges.filter((tx) => tx.status === 'authorized'),
      'the cycle is paid once',
    ).to.have.length(1);
    expect(charges.filter((tx) => tx.failureCode !== 'no_route' && tx.status !== 'authorized')).to.deep.equal([]);
    expect(await authorizations(sub), 'the first charge and the one renewal reached the provider').to.have.length(2);
  });

  it('a renewal the provider could not process (processing_error) is no dunning step, and the retry charges it', async function () {
    this.timeout(60_000);
    const sub = await subscribed(await serverNow());
    await override(sub.connector, 'processing_error', 1);
    await start(sub);
    await (
      await worker()
    ).runUntil(async () => {
      await sleepPast(server.env, sub.state.periodEnd);
      await server.env.sleep(HOUR);
    });
    const stored = await storedSubscription(sub.state.subscriptionId);
    expect([stored.status, stored.cyclesCompleted, stored.dunningAttemptCount]).to.deep.equal(['active', 2, 0]);
    const types = (await subscriptionEvents(sub.tenant.merchant_id)).map(([type]) => type);
    expect(types).to.deep.equal(['subscription.created', 'subscription.renewed']);
    expect((await renewalCharges(sub)).map((tx) => tx.status)).to.deep.equal(['failed', 'authorized']);
  });

  it('a dunning retry refused by an open circuit is not counted: the retry runs again soon, the schedule keeps its retries', async function () {
    this.timeout(60_000);
    const sub = await subscribed(await serverNow());
    await override(sub.connector, 'do_not_honor', 1);
    const handle = await start(sub);
    await (
      await worker()
    ).runUntil(async () => {
      await sleepPast(server.env, sub.state.periodEnd);
      expect((await handle.query(viewQuery)).state.status).to.equal('dunning');
      await circuit(sub, 'open');
      await sleepPast(server.env, (await handle.query(viewQuery)).nextWakeAt!);
      const stored = await storedSubscription(sub.state.subscriptionId);
      expect([stored.status, stored.dunningAttemptCount]).to.deep.equal(['dunning', 0]);
      await circuit(sub, 'closed');
      await server.env.sleep(6 * HOUR);
    });
    const stored = await storedSubscription(sub.state.subscriptionId);
    expect([stored.status, stored.cyclesCompleted]).to.deep.equal(['active', 2]);
    const types = (await subscriptionEvents(sub.tenant.merchant_id)).map(([type]) => type);
    expect(types).to.deep.equal([
      'subscription.created',
      'subscription.dunning',
      'subscription.renewed',
      'subscription.reactivated',
    ]);
  });

  it('a renewal whose charge never opened its transaction reads as not processed, never as a decline', async () => {
    const activities = createSubscriptionActivities({ orm: stack().orm });
    expect(await activities.renewalOutcome('tx_never_opened')).to.deep.equal({ status: 'unprocessed' });
  });
});
