/**
 * Determinism guard for the subscription workflow: a lifecycle (renewal, decline and dunning recovery, pause and
 * resume, offer change, scheduled cancellation taking effect) recorded on the time-skipping server and replayed
 * against the current code. With RECORD_HISTORIES=1 it is written to test/workflows/histories/, whose fixtures
 * charge-replay.test.ts replays too — so a change that would break running subscriptions fails CI.
 */
import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import { Worker } from '@temporalio/worker';
import { temporal } from '@temporalio/proto';
import { createActivities } from '../../activities';
import { vaultSettingsOf } from '../../activities/vault/settings';
import {
  cancelUpdate,
  changeOfferUpdate,
  pauseUpdate,
  resumeUpdate,
  subscriptionWorkflow,
  subscriptionWorkflowId,
  viewQuery,
} from '../../workflows/subscription';
import { sleepPast, useTimeSkipping } from '../helpers/time-skipping';
import { stack } from '../helpers/stack';
import { override } from '../helpers/transactions';
import { createOffer } from '../helpers/catalog';
import { subscribed } from '../helpers/subscriptions';

const FIXTURES = path.join(__dirname, 'histories');
const admin = { triggeredBy: 'admin' as const, actor: null };

describe('The subscription workflow replays deterministically', () => {
  const taskQueue = 'test-subscription-replay';
  const server = useTimeSkipping();

  it('replays a recorded lifecycle: renewal, dunning recovered, pause/resume, change offer, period-end cancel', async function () {
    this.timeout(120_000);
    const sub = await subscribed(new Date(Number(await server.env.currentTimeMs())));
    const { offer: pro, product } = await createOffer(sub.tenant.merchant_id, {
      familyId: sub.familyId,
      prices: [{ currency: 'USD', amount: 1999, isDefault: true }],
    });
    const handle = await server.env.client.workflow.start(subscriptionWorkflow, {
      workflowId: subscriptionWorkflowId(sub.state.subscriptionId),
      taskQueue,
      args: [{ state: sub.state }],
    });
    const worker = await Worker.create({
      connection: server.env.nativeConnection,
      taskQueue,
      workflowBundle: stack().workflowBundle,
      activities: createActivities({
        orm: stack().orm,
        rateLimitWindowSeconds: 60,
        vault: vaultSettingsOf(stack().config),
      }),
    });
    const result = await worker.runUntil(async () => {
      const nextWake = async () => (await handle.query(viewQuery)).nextWakeAt!;
      await sleepPast(server.env, sub.state.periodEnd); // renewed
      await override(sub.connector, 'do_not_honor', 1);
      await sleepPast(server.env, await nextWake()); // declined → dunning
      await sleepPast(server.env, await nextWake()); // first retry recovers
      await handle.executeUpdate(pauseUpdate, { args: [{ ...admin, reason: 'replay' }] });
      await handle.executeUpdate(resumeUpdate, { args: [admin] });
      await handle.executeUpdate(changeOfferUpdate, {
        args: [
          {
            ...admin,
            target: {
              offerId: pro.id,
              productId: product.id,
              productFamilyId: sub.familyId,
              amount: 1999,
              currency: 'USD',
              billingCycle: 'monthly',
              customDays: null,
              cycleLimit: null,
              behavior: 'next_renew',
            },
          },
        ],
      });
      await handle.executeUpdate(cancelUpdate, { args: [{ ...admin, atPeriodEnd: true, reason: 'replay' }] });
      return handle.result();
    });
    expect(result).to.equal('cancelled');
    const history = await handle.fetchHistory();
    if (process.env.RECORD_HISTORIES === '1') {
      fs.writeFileSync(
        path.join(FIXTURES, 'subscription-lifecycle.pb'),
        temporal.api.history.v1.History.encode(history).finish(),
      );
    }
    await Worker.runReplayHistory(
      { workflowBundle: stack().workflowBundle, replayName: 'subscription-replay' },
      history,
      subscriptionWorkflowId(sub.state.subscriptionId),
    );
  });
});
