import { expect } from 'chai';
import { Worker } from '@temporalio/worker';
import { createActivities } from '../../activities';
import { scheduleCheckoutExpiry } from '../../api/temporal/checkout';
import { type checkoutExpiryWorkflow } from '../../workflows/checkout-expiry';
import { checkoutExpiryWorkflowId, expiresAtChangedSignal } from '../../workflows/checkout-expiry.shared';
import { useTimeSkipping } from '../helpers/time-skipping';
import { api } from '../helpers/http';
import { createTenant, type Tenant } from '../helpers/factories';
import { HOUR, inFuture, newSession, setStored, storedStatus } from '../helpers/checkout';
import { stack } from '../helpers/stack';

describe('checkoutExpiryWorkflow (time-skipping test server)', () => {
  const taskQueue = 'test-checkout-expiry';
  const server = useTimeSkipping();
  let worker: Worker;
  let tenant: Tenant;

  beforeEach(async () => {
    tenant = await createTenant();
    // runUntil shuts a worker down, so each test gets its own.
    worker = await Worker.create({
      connection: server.env.nativeConnection,
      taskQueue,
      workflowBundle: stack().workflowBundle,
      activities: createActivities({ orm: stack().orm, rateLimitWindowSeconds: 60 }),
    });
  });

  /** How many times the workflow ran the activity (the signal path wakes once, the re-read path twice). */
  async function activityRuns(handle: {
    fetchHistory(): Promise<{ events?: Array<{ activityTaskScheduledEventAttributes?: unknown }> | null }>;
  }) {
    const history = await handle.fetchHistory();
    return (history.events ?? []).filter((event) => event.activityTaskScheduledEventAttributes).length;
  }

  /** The test server's clock: it only moves forward, skipping ahead across tests, so times are relative to it. */
  const serverNow = async () => Number(await server.env.currentTimeMs());

  /** A session expiring `expiresInMs` from the server's now, and its workflow started as the API starts it. */
  async function watched(expiresInMs: number) {
    const { session } = await newSession(tenant, { expires_at: inFuture(HOUR) });
    const expiresAt = new Date((await serverNow()) + expiresInMs);
    await setStored(session.id, { expires_at: expiresAt });
    await scheduleCheckoutExpiry(
      server.env.client,
      { sessionId: session.id, merchantId: tenant.merchant_id, expiresAt },
      taskQueue,
    );
    return {
      session,
      handle: server.env.client.workflow.getHandle<typeof checkoutExpiryWorkflow>(checkoutExpiryWorkflowId(session.id)),
    };
  }

  it('expires a session two hours after it was created (stored status and API read)', async () => {
    const { session, handle } = await watched(2 * HOUR);
    expect(await worker.runUntil(handle.result())).to.equal('expired');
    expect(await storedStatus(session.id)).to.equal('expired');
    const res = await api.get(`/checkout-sessions/${session.id}`, { key: tenant.merchant_secret_key });
    expect(res.body.data.status).to.equal('expired');
  });

  it('respects an expiry pushed out by signal: still open after the first deadline, expired after the second', async () => {
    const { session, handle } = await watched(2 * HOUR);
    const later = new Date((await serverNow()) + 5 * HOUR);
    await setStored(session.id, { expires_at: later });
    await handle.signal(expiresAtChangedSignal, later.toISOString());
    const outcome = await worker.runUntil(async () => {
      await server.env.sleep('3 hours');
      expect(await storedStatus(session.id)).to.equal('customer_identified');
      return handle.result();
    });
    expect(outcome).to.equal('expired');
    expect(await storedStatus(session.id)).to.equal('expired');
    expect(await activityRuns(handle)).to.equal(1);
  });

  it('re-reads expires_at, so a push-out whose signal never arrived is still respected', async () => {
    const { session, handle } = await watched(2 * HOUR);
    await setStored(session.id, { expires_at: new Date((await serverNow()) + 4 * HOUR) });
    const outcome = await worker.runUntil(async () => {
      await server.env.sleep('3 hours');
      expect(await storedStatus(session.id)).to.equal('customer_identified');
      return handle.result();
    });
    expect(outcome).to.equal('expired');
    expect(await activityRuns(handle)).to.equal(2);
  });

  it('leaves an abandoned session abandoned', async () => {
    const { session, handle } = await watched(2 * HOUR);
    await api.post(`/checkout-sessions/${session.id}/abandon`, { key: tenant.merchant_secret_key });
    expect(await worker.runUntil(handle.result())).to.equal('unchanged');
    expect(await storedStatus(session.id)).to.equal('abandoned');
  });

  it('leaves a completed session completed', async () => {
    const { session, handle } = await watched(2 * HOUR);
    await setStored(session.id, { status: 'completed' });
    expect(await worker.runUntil(handle.result())).to.equal('unchanged');
    expect(await storedStatus(session.id)).to.equal('completed');
  });

  it('ends quietly when the session does not exist (its creating request rolled back)', async () => {
    const sessionId = 'cks_rolledback000000000000';
    await scheduleCheckoutExpiry(
      server.env.client,
      { sessionId, merchantId: tenant.merchant_id, expiresAt: new Date(Date.now() + HOUR) },
      taskQueue,
    );
    const handle = server.env.client.workflow.getHandle<typeof checkoutExpiryWorkflow>(
      checkoutExpiryWorkflowId(sessionId),
    );
    expect(await worker.runUntil(handle.result())).to.equal('missing');
  });
});

describe('expireCheckoutSession activity', () => {
  const activities = () => createActivities({ orm: stack().orm, rateLimitWindowSeconds: 60 });

  it('is idempotent: expires once, then reports unchanged', async () => {
    const { session } = await newSession(await createTenant(), { expires_at: inFuture(HOUR) });
    const asOf = new Date(Date.now() + 2 * HOUR).toISOString();
    expect(await activities().expireCheckoutSession(session.id, asOf)).to.deep.equal({ outcome: 'expired' });
    expect(await activities().expireCheckoutSession(session.id, asOf)).to.deep.equal({ outcome: 'unchanged' });
  });

  it('does not expire before expires_at and returns the stored time instead', async () => {
    const { session } = await newSession(await createTenant(), { expires_at: inFuture(HOUR) });
    expect(await activities().expireCheckoutSession(session.id)).to.deep.equal({
      outcome: 'not_due',
      expiresAt: session.expires_at,
    });
    expect(await storedStatus(session.id)).to.equal('customer_identified');
  });
});
