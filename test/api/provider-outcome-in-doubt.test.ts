/**
 * A charge whose outcome no one can tell has a deadline. An Adyen (provider_b) auto-capture charge whose answer was
 * lost, with no AUTHORISATION notification ever arriving, cannot be read: its technical cancel answers `received`
 * whatever happened, so each reconciler run would ask again forever. Seven days (PROVIDER_OUTCOME_IN_DOUBT_DAYS)
 * after the attempt was sent, the reconciler escalates it instead: the attempt and the failed transaction say
 * `provider_outcome_in_doubt`, the merchant gets `transaction.in_doubt` once, and nothing is sent to the provider
 * again. A renewal in that state no longer holds its subscription in `settling`: the cycle is counted as billed in
 * doubt (no retry, which could charge the customer twice; no dunning, as no issuer declined) and the calendar goes on.
 * The week is simulated by moving the attempt's `started_at` back; the reconciler runs are driven by the test.
 */
import { expect } from 'chai';
import { createTenant, type Tenant } from '../helpers/factories';
import { api } from '../helpers/http';
import { rows } from '../helpers/db';
import { accountOf, ledger } from '../helpers/sandbox';
import { stack } from '../helpers/stack';
import { pastInDoubtDeadline, pastResolutionHorizon } from '../helpers/charge-resolution';
import { sellableOffer } from '../helpers/checkout';
import { advance, chargesOf, createClock, subscribeOnClock, subscriptionOf } from '../helpers/test-clocks';
import { cardCharge, cardToken, cascade, charge, override, type CascadeConnector } from '../helpers/transactions';
import { TASK_QUEUES } from '../../workflows/definitions';
import { reconcileUnknownOutcomesWorkflow } from '../../workflows/reconcile-unknown-outcomes';
import { RECONCILE_SCHEDULE_ID } from '../../worker/schedules';

const client = () => stack().api.deps.temporal.client;

const runReconciler = (tag: string): Promise<Record<string, number>> =>
  client().workflow.execute(reconcileUnknownOutcomesWorkflow, {
    workflowId: `test-reconcile-in-doubt-${tag}-${Date.now()}`,
    taskQueue: TASK_QUEUES.payments,
  });

const attemptCodes = async (transactionId: string): Promise<string[]> =>
  (
    await rows(`select error_code from transaction_attempts where transaction_id = ? order by attempt_number`, [
      transactionId,
    ])
  ).map((row) => row.error_code);

const eventTypes = async (tenant: Tenant, objectId: string): Promise<string[]> =>
  (
    await rows(`select type from events where merchant_id = ? and data->>'id' = ? order by seq`, [
      tenant.merchant_id,
      objectId,
    ])
  ).map((row) => row.type);

/** Every request the provider received on this account (replays under a used key included). */
const sentFor = async (connector: CascadeConnector) =>
  ledger({ provider: 'provider_b', account: await accountOf('provider_b', connector.credentials) });

describe('A provider outcome no one can tell is escalated as in doubt after its deadline', () => {
  let resume: () => Promise<void>;
  before(async () => {
    const schedule = client().schedule.getHandle(RECONCILE_SCHEDULE_ID);
    await schedule.pause('test: reconciler runs are driven by the test');
    resume = () => schedule.unpause('test: done');
    // What earlier tests left unresolved is taken up once, as the schedule's runs would have.
    await runReconciler('sweep');
  });
  after(() => resume());

  it('an Adyen auto-capture charge with a lost answer and no notification: asked about until the deadline, then transaction.in_doubt once, failure_code provider_outcome_in_doubt, and never asked about again', async function () {
    this.timeout(120_000);
    const tenant = await createTenant();
    const [connector] = await cascade(tenant, ['provider_b'], { webhooks: false });
    await override(connector, 'approved_server_error', 1);
    const res = await charge(tenant, cardCharge(await cardToken(tenant), { currency: 'BRL', country: 'BR' }));
    expect(res.status, res.text).to.equal(201);
    const txId = res.body.data.id;
    await pastResolutionHorizon(txId);

    // Within the deadline the reconciler keeps asking: the technical cancel again, still unknown.
    const before = (await sentFor(connector)).length;
    expect(await runReconciler('within')).to.include({ still_unknown: 1 });
    expect((await sentFor(connector)).length).to.be.greaterThan(before);
    expect(await attemptCodes(txId)).to.deep.equal(['provider_outcome_unknown']);

    await pastInDoubtDeadline([txId]);
    expect(await runReconciler('past')).to.deep.equal({ in_doubt: 1 });
    const tx = (await api.get(`/transactions/${txId}`, { key: tenant.merchant_secret_key })).body.data;
    expect(tx).to.include({ status: 'failed', failure_code: 'provider_outcome_in_doubt' });
    expect(tx.failure_message).to.match(/provider/i);
    expect(tx.timeline.map((a: any) => a.error_code)).to.deep.equal(['provider_outcome_in_doubt']);
    expect(await eventTypes(tenant, txId)).to.deep.equal([
      'transaction.created',
      'transaction.pending',
      'transaction.failed',
      'transaction.in_doubt',
    ]);

    // Escalated once: later runs take nothing and send the provider nothing.
    const sent = (await sentFor(connector)).length;
    expect(await runReconciler('after')).to.deep.equal({});
    expect(await sentFor(connector)).to.have.length(sent);
    expect((await eventTypes(tenant, txId)).filter((type) => type === 'transaction.in_doubt')).to.have.length(1);
    // The sandbox did take the money: what the merchant settles with the provider.
    expect((await ledger({ reference: txId, operation: 'authorize' })).some((e) => e.outcome === 'approved')).to.equal(
      true,
    );
  });

  it('a renewal in doubt past the deadline lets its subscription move on: the cycle counts as billed in doubt, no retry, no dunning, the next renewal is charged on the calendar', async function () {
    this.timeout(300_000);
    const tenant = await createTenant();
    const [connector] = await cascade(tenant, ['provider_b'], { webhooks: false });
    const clock = await createClock(tenant, '2027-01-10T10:00:00.000Z');
    const { offer } = await sellableOffer(tenant);
    const { sub, customerId } = await subscribeOnClock(tenant, clock.id, offer.id);

    // The renewal at Feb 10 is taken at the provider and its answer lost.
    await override(connector, 'approved_server_error', 1);
    await advance(tenant, clock.id, '2027-02-11T10:00:00.000Z');
    const renewal = (await chargesOf(tenant, customerId))[1];
    expect(renewal).to.include({ status: 'pending', subscription_id: sub.id });
    await pastResolutionHorizon(renewal.id);
    await advance(tenant, clock.id, '2027-02-12T10:00:00.000Z');
    // The attempt is unresolved: the subscription waits for it (charging again could charge twice).
    expect(await subscriptionOf(tenant, sub.id)).to.include({ status: 'active', cycles_completed: 1 });

    await pastInDoubtDeadline([renewal.id]);
    expect(await runReconciler('renewal')).to.deep.equal({ in_doubt: 1 });
    expect(await eventTypes(tenant, renewal.id)).to.include('transaction.in_doubt');

    await advance(tenant, clock.id, '2027-02-13T10:00:00.000Z');
    const moved = await subscriptionOf(tenant, sub.id);
    expect(moved).to.include({
      status: 'active',
      cycles_completed: 2,
      dunning_attempt_count: 0,
      current_period_start: '2027-02-10T10:00:00.000Z',
      next_billing_at: '2027-03-10T10:00:00.000Z',
    });
    // No second charge for the cycle in doubt, and nothing says it renewed or entered dunning.
    expect((await chargesOf(tenant, customerId)).map((tx) => tx.status)).to.deep.equal(['authorized', 'failed']);
    const subscriptionEvents = await eventTypes(tenant, sub.id);
    expect(subscriptionEvents).to.deep.equal(['subscription.created']);

    await advance(tenant, clock.id, '2027-03-11T10:00:00.000Z');
    expect((await chargesOf(tenant, customerId)).map((tx) => tx.status)).to.deep.equal([
      'authorized',
      'failed',
      'authorized',
    ]);
    expect(await subscriptionOf(tenant, sub.id)).to.include({ status: 'active', cycles_completed: 3 });
  });
});
