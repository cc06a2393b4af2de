/**
 * Deploy safety of the subscription workflow: one recorded history per behaviour path, replayed against the
 * current code. A change to workflows/subscription*.ts or workflows/lib/subscription-* that would reorder the
 * commands of a running subscription fails here (and in transaction-replay.test.ts, which replays every fixture);
 * such a change goes behind `patched()`. With RECORD_HISTORIES=1 each path is run live on the time-skipping server
 * and its history written to test/workflows/histories/subscription-<path>.pb — only for a path that is new, or
 * when no subscription has ever run the old code (say which in the commit).
 */
import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import { Worker } from '@temporalio/worker';
import { temporal } from '@temporalio/proto';
import type { WorkflowHandle } from '@temporalio/client';
import {
  MerchantConnectorSchema,
  OfferSchema,
  SubscriptionTransitionSchema,
  TransactionSchema,
} from '../../db/entities';
import { type subscriptionWorkflow } from '../../workflows/subscription';
import {
  billingResumedSignal,
  cancelUpdate,
  changeOfferUpdate,
  changePaymentInstrumentUpdate,
  pauseUpdate,
  resumeUpdate,
  subscriptionWorkflowId,
  viewQuery,
} from '../../workflows/subscription.shared';
import { sleepPast } from '../helpers/time-skipping';
import { useSubscriptionWorkflows } from '../helpers/subscription-workflows';
import { stack } from '../helpers/stack';
import { override } from '../helpers/transactions';
import { saveCard } from '../helpers/vault';
import { offerTarget, subscribed, type Subscribed } from '../helpers/subscriptions';

const FIXTURES = path.join(__dirname, 'histories');
const RECORD = process.env.RECORD_HISTORIES === '1';
const DAY = 86_400_000;
const admin = { triggeredBy: 'admin' as const, actor: null };

type Handle = WorkflowHandle<typeof subscriptionWorkflow>;
type Env = ReturnType<typeof useSubscriptionWorkflows>;

const nextWake = async (handle: Handle) => (await handle.query(viewQuery)).nextWakeAt!;
const setConnectorActive = (sub: Subscribed, isActive: boolean) =>
  stack().orm.em.fork().nativeUpdate(MerchantConnectorSchema, { id: sub.connector.id }, { isActive });

/** Each path: how to set the subscription up, and what to drive through the workflow (its history is the fixture). */
const PATHS: Record<
  string,
  {
    setUp: (at: Date) => Promise<Subscribed>;
    input?: { stepsPerRun?: number };
    drive: (env: Env, sub: Subscribed, handle: Handle) => Promise<unknown>;
  }
> = {
  lifecycle: {
    setUp: (at) => subscribed(at),
    drive: async ({ server }, sub, handle) => {
      await sleepPast(server.env, sub.state.periodEnd); // renewed
      await override(sub.connector, 'do_not_honor', 1);
      await sleepPast(server.env, await nextWake(handle)); // declined → dunning
      await sleepPast(server.env, await nextWake(handle)); // first retry recovers
      await handle.executeUpdate(pauseUpdate, { args: [{ ...admin, reason: 'replay' }] });
      await handle.executeUpdate(resumeUpdate, { args: [admin] });
      await handle.executeUpdate(changeOfferUpdate, {
        args: [{ ...admin, target: await offerTarget(sub, 1999, 'next_renew') }],
      });
      await handle.executeUpdate(cancelUpdate, { args: [{ ...admin, atPeriodEnd: true, reason: 'replay' }] });
      return handle.result();
    },
  },
  'trial-conversion': {
    setUp: (at) => subscribed(at, { freeTrial: true, trialDays: 14 }),
    drive: async ({ server }, sub) => sleepPast(server.env, sub.state.trialEnd!),
  },
  'hold-and-release': {
    setUp: async (at) => {
      const sub = await subscribed(at);
      await setConnectorActive(sub, false);
      return sub;
    },
    drive: async ({ server }, sub, handle) => {
      await server.env.sleep(40 * DAY);
      await setConnectorActive(sub, true);
      await handle.signal(billingResumedSignal);
      await server.env.sleep(5 * 60_000);
    },
  },
  'cycle-limit-expire': {
    setUp: (at) => subscribed(at, { cycleLimit: 2 }),
    drive: async (_, __, handle) => expect(await handle.result()).to.equal('expired'),
  },
  'card-gone': {
    setUp: async (at) => {
      const sub = await subscribed(at);
      await override(sub.connector, 'stolen_card', 1);
      return sub;
    },
    drive: async ({ server }, sub, handle) => {
      await sleepPast(server.env, sub.state.periodEnd);
      const card = await saveCard(sub.tenant, sub.customerId);
      await handle.executeUpdate(changePaymentInstrumentUpdate, { args: [{ ...admin, paymentInstrumentId: card.id }] });
      await server.env.sleep(3_600_000);
    },
  },
  'dunning-exhausted': {
    setUp: async (at) => {
      const sub = await subscribed(at);
      await override(sub.connector, 'do_not_honor', 5);
      return sub;
    },
    drive: async (_, __, handle) => expect(await handle.result()).to.equal('cancelled'),
  },
  'prorated-and-override-changes': {
    setUp: (at) => subscribed(at),
    drive: async ({ server }, sub, handle) => {
      await server.env.sleep(10 * DAY);
      await handle.executeUpdate(changeOfferUpdate, {
        args: [{ ...admin, target: await offerTarget(sub, 1999, 'prorated') }],
      });
      await server.env.sleep(5 * DAY);
      await handle.executeUpdate(changeOfferUpdate, {
        args: [{ ...admin, target: await offerTarget(sub, 2999, 'override') }],
      });
      await server.env.sleep(3_600_000);
    },
  },
  'continue-as-new': {
    setUp: (at) => subscribed(at),
    input: { stepsPerRun: 2 },
    drive: async ({ server }) => server.env.sleep(65 * DAY),
  },
  'operations-queued-behind-a-renewal': {
    setUp: (at) => subscribed(at),
    drive: async ({ server }, sub, handle) => {
      await override(sub.connector, 'slow');
      const skipping = sleepPast(server.env, sub.state.periodEnd, 60_000);
      const em = stack().orm.em.fork();
      while (!(await em.count(TransactionSchema, { subscriptionId: sub.state.subscriptionId, status: 'pending' }))) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      await Promise.allSettled([
        handle.executeUpdate(pauseUpdate, { args: [{ ...admin, reason: null }] }),
        handle.executeUpdate(pauseUpdate, { args: [{ ...admin, reason: null }] }),
        handle.executeUpdate(cancelUpdate, { args: [{ ...admin, atPeriodEnd: false, reason: null }] }),
      ]);
      await skipping;
      return handle.result();
    },
  },
  'cycle-limit-renew': {
    setUp: async (at) => {
      const sub = await subscribed(at, { cycleLimit: 2 });
      await stack().orm.em.fork().nativeUpdate(OfferSchema, { id: sub.offerId }, { renewAfterCycleLimit: true });
      return sub;
    },
    drive: async ({ server }, sub, handle) => {
      expect(await handle.result()).to.equal('expired');
      // The successor runs on this test's queue: it is ended here (the path's history is the old subscription's).
      // Recorded last: after it, the time-skipping server's clock would not move for the next path.
      const [renewal] = await stack().orm.em.fork().find(SubscriptionTransitionSchema, {
        subscriptionId: sub.state.subscriptionId,
        transitionType: 'cycle_limit_renewed',
      });
      const successor = server.env.client.workflow.getHandle(
        subscriptionWorkflowId((renewal.metadata as { renewed_as: string }).renewed_as),
      );
      // Once it is at rest: an activity cut off by a terminate holds the time-skipping server's clock.
      for (;;) {
        const { raw } = await successor.describe();
        if (!raw.pendingActivities?.length && !raw.pendingChildren?.length) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      await successor.terminate();
    },
  },
};

describe('The subscription workflow replays deterministically (one recorded history per path)', () => {
  const env = useSubscriptionWorkflows('test-subscription-replay');

  for (const [name, scenario] of Object.entries(PATHS)) {
    const file = path.join(FIXTURES, `subscription-${name}.pb`);
    it(`replays the recorded ${name} path`, async function () {
      this.timeout(120_000);
      if (RECORD) {
        const sub = await scenario.setUp(await env.serverNow());
        const handle = await env.start(sub, scenario.input);
        await (await env.worker()).runUntil(() => scenario.drive(env, sub, handle));
        // The first run: continue-as-new (when the path has it) is its last event.
        const first = env.server.env.client.workflow.getHandle(handle.workflowId, handle.firstExecutionRunId);
        const history = await first.fetchHistory();
        fs.writeFileSync(file, temporal.api.history.v1.History.encode(history).finish());
      }
      expect(fs.existsSync(file), `${file} is recorded (RECORD_HISTORIES=1)`).to.equal(true);
      const history = temporal.api.history.v1.History.decode(fs.readFileSync(file));
      await Worker.runReplayHistory(
        { workflowBundle: stack().workflowBundle, replayName: path.basename(file, '.pb') },
        history,
        subscriptionWorkflowId(`replay-${name}`),
      );
    });
  }
});
