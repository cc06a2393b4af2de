/**
 * Reliability part 5 — webhook receiver chaos. Real delivery workflows and activities on Temporal's
 * time-skipping test server, against a real HTTP receiver on 127.0.0.1 that is
 *   1. down for the first 3 simulated hours (connection resets and 503s),
 *   2. then chaotic until hour 8: 500s, timeouts (it answers after the attempt's deadline), resets, some
 *      200s — and one endpoint of the three answers 410 Gone at random (and stays gone),
 *   3. then healthy.
 * Events are recorded before the outage and during the chaos. Checks: every event reaches both surviving
 * endpoints (acknowledged with a 2xx), every request's signature verifies with a Standard Webhooks verifier
 * written from the spec (test/helpers/webhooks.ts verifyStandardWebhook — no verifier package is installed, and
 * none can be here), the webhook-id is the event id on every attempt and the body is byte-identical across
 * attempts, and the 410 deactivated its endpoint: no request reached it from an attempt that started afterwards.
 *
 * Environment:
 *   RELIABILITY_WEBHOOK_EVENTS  events recorded before the outage (default 12; another third is recorded mid-chaos)
 *   RELIABILITY_SEED            seed of the receiver's random answers (default: random; printed in the summary)
 *
 * Summary: `[reliability] webhook-receiver-chaos: events=…, endpoints=…, requests=…, acknowledged=…, lost=…,
 * bad_signatures=…, unstable_ids=…, gone_disabled=…, after_disable=…, seed=…`.
 */
import { expect } from 'chai';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomInt } from 'node:crypto';
import { Client } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import { createWebhookActivities } from '../../activities/webhooks';
import { webhookSettingsOf } from '../../activities/webhooks/deliver';
import { webhookDeliveryWorkflow } from '../../workflows/webhook-delivery';
import {
  deliveryStartOptions,
  type WebhookDeliveryInput,
  type WebhookDeliveryResult,
} from '../../workflows/webhook-delivery.shared';
import { useTimeSkipping } from '../helpers/time-skipping';
import { api } from '../helpers/http';
import { createTenant } from '../helpers/factories';
import { stack } from '../helpers/stack';
import { rows } from '../helpers/db';
import { createConfig, recordTestEvent, verifyStandardWebhook } from '../helpers/webhooks';
import { registerSecret } from './support/secrets';

const EVENTS = Number(process.env.RELIABILITY_WEBHOOK_EVENTS ?? 12);
const SEED = Number(process.env.RELIABILITY_SEED ?? randomInt(1, 2 ** 31));
/** One attempt's HTTP deadline here (production: 15 s): a "timeout" answer then costs one real second. */
const ATTEMPT_TIMEOUT_MS = 1000;
const HOUR = 3600 * 1000;

const progress = (what: string) => {
  if (process.env.RELIABILITY_DEBUG) console.log(`[webhook-receiver-chaos] ${new Date().toISOString()} ${what}`);
};

/** mulberry32: a small seeded PRNG, so a failing run can be replayed with RELIABILITY_SEED. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Phase = 'down' | 'chaos' | 'healthy';
type Answer = 'reset' | 'timeout' | 410 | 500 | 503 | 200;

interface Request {
  path: string;
  phase: Phase;
  headers: http.IncomingHttpHeaders;
  body: string;
  answer: Answer;
}

/**
 * The chaotic receiver: its answer depends on the simulated time (the test server's clock, so the outage lasts
 * 3 hours of workflow time whatever the real pace), a seeded draw and, for /gone, whether it already said 410.
 */
async function startChaoticReceiver(random: () => number, simulatedNow: () => Promise<number>) {
  const requests: Request[] = [];
  const state = { startedAt: await simulatedNow(), gone: false, goneChaosRequests: 0 };
  const phaseAt = (now: number): Phase =>
    now - state.startedAt < 3 * HOUR ? 'down' : now - state.startedAt < 8 * HOUR ? 'chaos' : 'healthy';
  const pick = (path: string, phase: Phase): Answer => {
    if (path === '/gone' && state.gone) return 410;
    if (phase === 'healthy') return 200;
    const draw = random();
    if (phase === 'down') return draw < 0.5 ? 'reset' : 503;
    // /gone says 410 at random, and at its third chaotic request at the latest (a small run must see one).
    if (path === '/gone' && (draw < 0.25 || ++state.goneChaosRequests >= 3)) return 410;
    if (draw < 0.35) return 500;
    if (draw < 0.5) return 'timeout';
    if (draw < 0.6) return 'reset';
    return 200;
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => void reply());
    const reply = async () => {
      const path = req.url ?? '/';
      const phase = phaseAt(await simulatedNow());
      const answer = pick(path, phase);
      if (answer === 410) state.gone = true;
      requests.push({ path, phase, headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), answer });
      if (answer === 'reset') return req.socket.destroy();
      if (answer === 'timeout') {
        setTimeout(() => res.end('late'), ATTEMPT_TIMEOUT_MS * 2);
        return;
      }
      res.writeHead(answer).end(String(answer));
    };
  });
  server.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    state,
    phaseAt,
    requests,
    url: (path: string) => `http://127.0.0.1:${port}${path}`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe('reliability: webhook receiver chaos (time-skipping server)', function () {
  this.timeout(10 * 60 * 1000);
  const server = useTimeSkipping();
  const taskQueue = 'reliability-webhook-chaos';

  it('delivers every event to every surviving endpoint, signed and under a stable id, and a 410 disables its endpoint', async () => {
    const tenant = await createTenant();
    const receiver = await startChaoticReceiver(seeded(SEED), () => server.env.currentTimeMs());
    const paths = ['/a', '/b', '/gone'];
    const configs = new Map<string, { id: string; secret: string }>();
    for (const path of paths) {
      const config = await createConfig(tenant, { url: receiver.url(path) });
      configs.set(path, { id: config.id as string, secret: config.secret as string });
      registerSecret('webhook_secret', config.secret as string, `webhook-receiver-chaos ${path} endpoint`);
    }
    const worker = await Worker.create({
      connection: server.env.nativeConnection,
      taskQueue,
      workflowBundle: stack().workflowBundle,
      activities: createWebhookActivities({
        orm: stack().orm,
        webhooks: { ...webhookSettingsOf(stack().config), timeoutMs: ATTEMPT_TIMEOUT_MS },
      }),
    });

    // A plain client: the environment's own one skips time while awaiting each result, and the test server's
    // time lock does not survive dozens of those overlapping ("Unbalanced lock and unlock calls"). Time moves
    // here only by the explicit sleeps below.
    const client = new Client({ connection: server.env.connection, namespace: server.env.namespace });
    // Kept out of the stack's own fan-out (fannedOut): this part starts the deliveries on the time-skipping server.
    const eventIds: string[] = [];
    const deliveries: Promise<WebhookDeliveryResult & { path: string }>[] = [];
    const record = async (count: number) => {
      for (let i = 0; i < count; i += 1) {
        const event = await recordTestEvent(
          tenant,
          'transaction.authorized',
          { id: `tx_chaos_${i}`, status: 'authorized', amount: 1000 + i },
          { fannedOut: true },
        );
        eventIds.push(event.id);
        for (const path of paths) {
          const input: WebhookDeliveryInput = {
            eventId: event.id,
            configId: configs.get(path)!.id,
            merchantId: tenant.merchant_id,
            eventType: event.type,
            trigger: 'automatic',
          };
          const handle = await client.workflow.start(webhookDeliveryWorkflow, deliveryStartOptions(input, taskQueue));
          deliveries.push(handle.result().then((result) => ({ ...result, path })));
        }
      }
    };

    const results = await worker.runUntil(async () => {
      await record(EVENTS);
      progress('recorded; down');
      // More events once the receiver is chaotic: step the clock until then (each sleep still fires due timers).
      while (receiver.phaseAt(await server.env.currentTimeMs()) === 'down') await server.env.sleep('20 minutes');
      progress('chaos');
      await record(Math.ceil(EVENTS / 3));
      // One clock step at a time until every delivery has ended (the last attempt is ~26 h after the first).
      let settled = false;
      const all = Promise.all(deliveries).finally(() => (settled = true));
      for (let hours = 0; !settled && hours < 40; hours += 1) await server.env.sleep('1 hour');
      return all;
    });
    await receiver.close();

    // Every event acknowledged (2xx) by both endpoints that never said 410.
    const acknowledged = (path: string) =>
      new Set(
        receiver.requests
          .filter((r) => r.path === path && r.answer === 200)
          .map((r) => r.headers['webhook-id'] as string),
      );
    const lost = ['/a', '/b'].flatMap((path) => eventIds.filter((id) => !acknowledged(path).has(id)));
    for (const result of results.filter((r) => r.path !== '/gone'))
      expect(result).to.deep.include({ status: 'succeeded', end: 'delivered' });

    // Signatures verify on every request with the endpoint's secret; ids and bodies are stable across attempts.
    const badSignatures = receiver.requests.filter(
      (r) => !verifyStandardWebhook(configs.get(r.path)!.secret, r.headers, r.body),
    );
    const bodyById = new Map<string, string>();
    const unstable = receiver.requests.filter((r) => {
      const id = r.headers['webhook-id'] as string;
      const first = bodyById.get(id) ?? r.body;
      bodyById.set(id, first);
      return (JSON.parse(r.body) as { id: string }).id !== id || r.body !== first;
    });

    // The 410 deactivated /gone; no attempt started after the deactivation reached it.
    const gone = configs.get('/gone')!;
    const read = await api.get(`/merchants/${tenant.merchant_id}/webhook-configs/${gone.id}`, {
      key: tenant.merchant_secret_key,
    });
    const [deactivation] = await rows(
      `select updated_at as at from merchant_webhook_configs where id = ? and not is_active`,
      [gone.id],
    );
    // An attempt that read the endpoint just before the deactivation committed may still send within
    // milliseconds of it (updated_at is the deactivating transaction's start); one that starts later must not send.
    const afterDisable = deactivation
      ? await rows(
          `select id, sent_at from webhook_deliveries
            where merchant_webhook_config_id = ? and sent_at > ?::timestamptz + interval '1 second'`,
          [gone.id, deactivation.at],
        )
      : [];
    const goneEnds = results.filter((r) => r.path === '/gone').map((r) => r.end);

    const requests = receiver.requests.length;
    const byPhase = countBy(receiver.requests.map((r) => r.phase));
    console.log(
      `[reliability] webhook-receiver-chaos: events=${eventIds.length}, endpoints=${paths.length}, requests=${requests}, ` +
        `requests_down=${byPhase.down ?? 0}, requests_chaos=${byPhase.chaos ?? 0}, requests_healthy=${byPhase.healthy ?? 0}, ` +
        `acknowledged=${acknowledged('/a').size + acknowledged('/b').size}, lost=${lost.length}, ` +
        `bad_signatures=${badSignatures.length}, unstable_ids=${unstable.length}, gone_disabled=${read.body.is_active === false}, ` +
        `gone_ends=${JSON.stringify(countBy(goneEnds))}, after_disable=${afterDisable.length}, seed=${SEED}`,
    );

    expect(lost, `lost (seed ${SEED})`).to.deep.equal([]);
    // The outage was real: every event recorded before it met it on every endpoint; the chaos and recovery too.
    expect(byPhase.down ?? 0, 'requests while down').to.be.at.least(EVENTS * paths.length);
    expect(byPhase.chaos ?? 0, 'requests during the chaos').to.be.above(0);
    expect(byPhase.healthy ?? 0, 'requests after the recovery').to.be.above(0);
    expect(badSignatures, 'requests whose signature does not verify').to.have.length(0);
    expect(unstable, 'requests whose webhook-id or body changed across attempts').to.have.length(0);
    expect(
      receiver.requests.filter((r) => r.answer === 410),
      'the receiver said 410 at least once',
    ).not.to.be.empty;
    expect(read.body.is_active, 'the 410 deactivated its endpoint').to.equal(false);
    expect(
      afterDisable,
      `attempts sent to the endpoint after its deactivation at ${String(deactivation?.at)}`,
    ).to.have.length(0);
    // A /gone delivery ends delivered (before the 410), gone (it got the 410) or endpoint_disabled — never exhausted.
    expect(goneEnds.filter((end) => !['delivered', 'gone', 'endpoint_disabled'].includes(end))).to.deep.equal([]);
  });
});

function countBy(values: string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const value of values) counts[value] = (counts[value] ?? 0) + 1;
  return counts;
}
