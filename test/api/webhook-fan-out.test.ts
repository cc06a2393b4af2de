/**
 * Fan-out from the events outbox: each event reaches every active configuration of its merchant whose filter
 * matches, exactly once per configuration, even when the worker is down at commit time or dies mid-fan-out.
 */
import { expect } from 'chai';
import { WorkflowNotFoundError } from '@temporalio/client';
import { api } from '../helpers/http';
import { addMerchant, createTenant, type Tenant } from '../helpers/factories';
import { stack, withWorkerDown } from '../helpers/stack';
import {
  createConfig,
  deliveryRows,
  recordTestEvent,
  startReceiver,
  waitUntil,
  type Receiver,
} from '../helpers/webhooks';
import { EVENTS_CHANNEL, recordEvent } from '../../domain/events/events.outbox';
import { TASK_QUEUES } from '../../workflows/definitions';
import { webhookDeliveryWorkflow } from '../../workflows/webhook-delivery';
import { deliveryWorkflowId } from '../../workflows/webhook-delivery.shared';
import { webhookOutboxSweepWorkflow } from '../../workflows/webhook-fan-out';
import { fanOutEvents, startDelivery, type FanOutDeps } from '../../activities/webhooks/fan-out';

/** Fans one event out as the listener does; null when there is nothing to do. */
const fanOutEvent = async (deps: FanOutDeps, eventId: string) =>
  (await fanOutEvents(deps, [eventId])).get(eventId) ?? null;

const client = () => stack().api.deps.temporal.client;
const ids = (receiver: Receiver, path: string) =>
  receiver
    .on(path)
    .map((r) => r.headers['webhook-id'])
    .sort();
const fannedOut = async (eventId: string) =>
  (
    await stack()
      .orm.em.fork()
      .execute<{ done: boolean }[]>('select fanned_out_at is not null as done from events where id = ?', [eventId])
  )[0].done;

/** A connection of its own (outside the pool), as the worker's outbox listener opens one. */
interface RawConnection {
  query(sql: string): Promise<unknown>;
  on(event: 'notification', listener: (message: { payload?: string }) => void): void;
  end(): Promise<void>;
}
const rawConnection = () =>
  (
    stack().orm.em.getConnection().getKnex().client as unknown as { acquireRawConnection(): Promise<RawConnection> }
  ).acquireRawConnection();

describe('Webhook fan-out', () => {
  let tenant: Tenant;
  let receiver: Receiver;
  beforeEach(async () => {
    tenant = await createTenant();
    receiver = await startReceiver();
  });
  afterEach(async () => {
    await receiver.close();
  });

  it('delivers each event to every active matching configuration of its merchant, and to no other', async () => {
    await createConfig(tenant, { url: receiver.url('/authorized-only'), event_filter: ['transaction.authorized'] });
    await createConfig(tenant, { url: receiver.url('/everything') });
    const inactive = await createConfig(tenant, { url: receiver.url('/inactive') });
    await api.patch(`/merchants/${tenant.merchant_id}/webhook-configs/${inactive.id}`, {
      key: tenant.merchant_secret_key,
      body: { is_active: false },
    });
    const other = await addMerchant(tenant);
    await api.post(`/merchants/${other.merchantId}/webhook-configs`, {
      key: other.merchantKey,
      body: { url: receiver.url('/other-merchant') },
    });

    const authorized = await recordTestEvent(tenant, 'transaction.authorized', { id: 'tx_a' });
    const failed = await recordTestEvent(tenant, 'transaction.failed', { id: 'tx_b' });
    await receiver.waitFor((all) => all.length >= 3);
    await waitUntil(async () => (await fannedOut(authorized.id)) && (await fannedOut(failed.id)));
    await new Promise((resolve) => setTimeout(resolve, 500));

    expect(ids(receiver, '/authorized-only')).to.deep.equal([authorized.id]);
    expect(ids(receiver, '/everything')).to.deep.equal([authorized.id, failed.id].sort());
    expect(receiver.on('/inactive')).to.have.length(0);
    expect(receiver.on('/other-merchant')).to.have.length(0);
    // No delivery workflow was even started for the inactive configuration.
    const skipped = client().workflow.getHandle(deliveryWorkflowId(authorized.id, inactive.id)).describe();
    await skipped.then(
      () => expect.fail('a delivery workflow exists for the inactive configuration'),
      (error) => expect(error).to.be.instanceOf(WorkflowNotFoundError),
    );
  });

  it("delivers every event recorded while the worker was down once it is back (the listener's catch-up sweep)", async function () {
    this.timeout(60_000);
    await createConfig(tenant, { url: receiver.url('/one') });
    await createConfig(tenant, { url: receiver.url('/two') });
    const events: string[] = [];
    await withWorkerDown(async () => {
      for (const type of ['transaction.created', 'transaction.authorized', 'transaction.refunded'] as const) {
        events.push((await recordTestEvent(tenant, type, { id: `tx_${type}` })).id);
      }
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      expect(receiver.requests).to.have.length(0);
      for (const id of events) expect(await fannedOut(id)).to.equal(false);
    });
    await receiver.waitFor((all) => all.length >= 6, 30_000);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(ids(receiver, '/one')).to.deep.equal([...events].sort());
    expect(ids(receiver, '/two')).to.deep.equal([...events].sort());
    for (const id of events) expect(await fannedOut(id)).to.equal(true);
  });

  it('completes a fan-out that died after starting some deliveries, without sending any twice', async function () {
    // The missing delivery is found by the outbox sweep, which runs every minute: allow a whole period on a busy machine.
    this.timeout(120_000);
    const first = await createConfig(tenant, { url: receiver.url('/first') });
    await createConfig(tenant, { url: receiver.url('/second') });
    let eventId = '';
    let firstRunId = '';
    await withWorkerDown(async () => {
      eventId = (await recordTestEvent(tenant, 'transaction.authorized', { id: 'tx_partial' })).id;
      // What a fan-out that crashed half-way leaves behind (its mark rolled back): one delivery started, the
      // event still in the outbox.
      const handle = await client().workflow.start(webhookDeliveryWorkflow, {
        workflowId: deliveryWorkflowId(eventId, first.id),
        taskQueue: TASK_QUEUES.webhooks,
        args: [
          {
            eventId,
            configId: first.id,
            merchantId: tenant.merchant_id,
            eventType: 'transaction.authorized',
            trigger: 'automatic',
          },
        ],
      });
      firstRunId = handle.firstExecutionRunId;
    });
    await receiver.waitFor((all) => all.length >= 2, 90_000);
    await waitUntil(() => fannedOut(eventId));
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(ids(receiver, '/first')).to.deep.equal([eventId]);
    expect(ids(receiver, '/second')).to.deep.equal([eventId]);
    expect((await client().workflow.getHandle(deliveryWorkflowId(eventId, first.id)).describe()).runId).to.equal(
      firstRunId,
    );
  });

  it('fans an event out once: a second fan-out of the same event finds nothing to do', async () => {
    await createConfig(tenant, { url: receiver.url('/once') });
    const eventId = `evt_fanouttwice${Date.now()}`;
    await stack()
      .orm.em.fork()
      .execute(
        `insert into events (id, organization_id, merchant_id, type, data) values (?, ?, ?, 'transaction.created', '{}')`,
        [eventId, tenant.organization_id, tenant.merchant_id],
      );
    const deps = { orm: stack().orm, client: client(), taskQueue: TASK_QUEUES.webhooks };
    const [a, b] = await Promise.all([fanOutEvent(deps, eventId), fanOutEvent(deps, eventId)]);
    // Concurrent: one claims the row, the other skips it (both skip only if the scheduled sweep won the race).
    const claimed = [a, b].filter(Boolean);
    expect(claimed.length).to.be.at.most(1);
    for (const result of claimed) expect(result).to.deep.equal({ started: 1, configurations: 1 });
    expect(await fanOutEvent(deps, eventId)).to.equal(null);
    await receiver.waitFor((all) => all.length >= 1);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(ids(receiver, '/once')).to.deep.equal([eventId]);
  });

  it('fans several events out in one batch, each to its own configurations, and marks every one', async () => {
    await createConfig(tenant, { url: receiver.url('/batch-all') });
    await createConfig(tenant, { url: receiver.url('/batch-refunds'), event_filter: ['transaction.refunded'] });
    const stamp = Date.now();
    const events = [
      [`evt_batcha${stamp}`, 'transaction.created'],
      [`evt_batchb${stamp}`, 'transaction.refunded'],
      [`evt_batchc${stamp}`, 'transaction.created'],
    ];
    for (const [id, type] of events)
      await stack()
        .orm.em.fork()
        .execute(`insert into events (id, organization_id, merchant_id, type, data) values (?, ?, ?, ?, '{}')`, [
          id,
          tenant.organization_id,
          tenant.merchant_id,
          type,
        ]);
    const deps = { orm: stack().orm, client: client(), taskQueue: TASK_QUEUES.webhooks };
    const results = await fanOutEvents(deps, [...events.map(([id]) => id), 'evt_doesnotexist']);
    expect(Object.fromEntries(results)).to.deep.equal({
      [events[0][0]]: { started: 1, configurations: 1 },
      [events[1][0]]: { started: 2, configurations: 2 },
      [events[2][0]]: { started: 1, configurations: 1 },
    });
    for (const [id] of events) expect(await fannedOut(id)).to.equal(true);
    await receiver.waitFor((requests) => requests.length >= 4);
    expect(ids(receiver, '/batch-all')).to.deep.equal(events.map(([id]) => id).sort());
    expect(ids(receiver, '/batch-refunds')).to.deep.equal([events[1][0]]);
  });

  it('sweeps an event whose kick never happened (the scheduled sweep)', async () => {
    await createConfig(tenant, { url: receiver.url('/swept') });
    // Inserted without NOTIFY: as if the commit happened and the process died before any kick.
    const eventId = `evt_lostkick${Date.now()}`;
    await stack()
      .orm.em.fork()
      .execute(
        `insert into events (id, organization_id, merchant_id, type, data) values (?, ?, ?, 'transaction.created', '{"id":"tx_swept"}')`,
        [eventId, tenant.organization_id, tenant.merchant_id],
      );
    // (No check that nothing arrived yet: the minutely scheduled sweep may legitimately get there first.)
    const { fannedOut: swept } = await client().workflow.execute(webhookOutboxSweepWorkflow, {
      workflowId: `test-sweep-${eventId}`,
      taskQueue: TASK_QUEUES.webhooks,
    });
    expect(swept).to.be.at.least(0); // the scheduled run may have got there first
    await waitUntil(() => fannedOut(eventId));
    await receiver.waitFor((all) => all.length >= 1);
    expect(ids(receiver, '/swept')).to.deep.equal([eventId]);
  });

  it('fans a notified event out as the sweep does: one delivery workflow per matching endpoint, each from attempt 1', async () => {
    const one = await createConfig(tenant, { url: receiver.url('/listener-one') });
    const two = await createConfig(tenant, { url: receiver.url('/listener-two') });
    const event = await recordTestEvent(tenant, 'transaction.created', { id: 'tx_listened' });
    await waitUntil(() => fannedOut(event.id));
    for (const config of [one, two]) {
      const workflow = client().workflow.getHandle(deliveryWorkflowId(event.id, config.id));
      expect(await workflow.result()).to.deep.include({ status: 'succeeded', attempts: 1 });
      expect((await workflow.describe()).taskQueue).to.equal(TASK_QUEUES.webhooks);
    }
    expect(ids(receiver, '/listener-one')).to.deep.equal([event.id]);
    expect(ids(receiver, '/listener-two')).to.deep.equal([event.id]);
  });

  it('redoes a fan-out that died half-way by starting only the deliveries that are missing', async () => {
    const first = await createConfig(tenant, { url: receiver.url('/redo-first') });
    await createConfig(tenant, { url: receiver.url('/redo-second') });
    // Inserted without NOTIFY, so the stack's listener leaves it to this fan-out.
    const eventId = `evt_redo${Date.now()}`;
    await stack()
      .orm.em.fork()
      .execute(
        `insert into events (id, organization_id, merchant_id, type, data) values (?, ?, ?, 'transaction.created', '{"id":"tx_redo"}')`,
        [eventId, tenant.organization_id, tenant.merchant_id],
      );
    // What the dead fan-out left: the first delivery started, the event still in the outbox (its mark rolled back).
    await startDelivery(client(), TASK_QUEUES.webhooks, {
      eventId,
      configId: first.id,
      merchantId: tenant.merchant_id,
      eventType: 'transaction.created',
      trigger: 'automatic',
    });
    const deps = { orm: stack().orm, client: client(), taskQueue: TASK_QUEUES.webhooks };
    const redone = await fanOutEvent(deps, eventId);
    // The scheduled sweep may have redone it first; either way exactly one start was missing.
    if (redone) expect(redone).to.deep.equal({ started: 1, configurations: 2 });
    await receiver.waitFor((all) => all.length >= 2);
    await waitUntil(() => fannedOut(eventId));
    expect(ids(receiver, '/redo-first')).to.deep.equal([eventId]);
    expect(ids(receiver, '/redo-second')).to.deep.equal([eventId]);
  });

  it('records an event no configuration takes already fanned out, with no NOTIFY and no fan-out work; a taken one is still delivered', async () => {
    // The outbox's kicks, as the listener sees them (notifications arrive in commit order).
    const listener = await rawConnection();
    const kicked: string[] = [];
    listener.on('notification', ({ payload }: { payload?: string }) => kicked.push(payload ?? ''));
    await listener.query(`listen ${EVENTS_CHANNEL}`);
    try {
      // Configurations that do not take a transaction.created: another type only, inactive.
      await createConfig(tenant, { url: receiver.url('/refunds-only'), event_filter: ['transaction.refunded'] });
      const inactive = await createConfig(tenant, { url: receiver.url('/inactive') });
      await api.patch(`/merchants/${tenant.merchant_id}/webhook-configs/${inactive.id}`, {
        key: tenant.merchant_secret_key,
        body: { is_active: false },
      });
      const untaken = await recordTestEvent(tenant, 'transaction.created', { id: 'tx_nobody' });
      expect(untaken.fannedOutAt, 'recorded already fanned out').to.be.instanceOf(Date);
      // Marked by the insert itself: no fan-out ever claimed it.
      expect(await fannedOut(untaken.id)).to.equal(true);

      // A configuration created after that event does not take it, but takes the next one: delivered as before.
      await createConfig(tenant, { url: receiver.url('/created-later') });
      const taken = await recordTestEvent(tenant, 'transaction.created', { id: 'tx_someone' });
      expect(taken.fannedOutAt).to.equal(null);
      await waitUntil(async () => kicked.includes(taken.id));
      expect(kicked).to.deep.equal([taken.id]);
      await receiver.waitFor((all) => all.length >= 1);
      await waitUntil(() => fannedOut(taken.id));
      expect(ids(receiver, '/created-later')).to.deep.equal([taken.id]);
      expect(receiver.requests.map((r) => r.headers['webhook-id'])).to.not.include(untaken.id);
      expect(await deliveryRows('event_id = ?', [untaken.id])).to.have.length(0);
    } finally {
      await listener.end();
    }
  });

  it('sends nothing for a producer transaction that rolled back (the event and its NOTIFY vanish together)', async () => {
    await createConfig(tenant, { url: receiver.url('/rolled-back') });
    let eventId = '';
    const attempt = stack()
      .orm.em.fork()
      .transactional(async (em) => {
        eventId = (
          await recordEvent(em, {
            organizationId: tenant.organization_id,
            merchantId: tenant.merchant_id,
            livemode: true,
            type: 'transaction.created',
            object: { id: 'tx_x' },
          })
        ).id;
        throw new Error('the producer failed after recording');
      });
    await attempt.then(
      () => expect.fail('should have thrown'),
      (error: Error) => expect(error.message).to.equal('the producer failed after recording'),
    );
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(receiver.requests).to.have.length(0);
    expect(await deliveryRows('event_id = ?', [eventId])).to.have.length(0);
    expect(await stack().orm.em.fork().execute('select id from events where id = ?', [eventId])).to.have.length(0);
  });
});
