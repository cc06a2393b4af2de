/**
 * Webhook fan-out is fair between merchants: every attempt is a delivery workflow's, and one worker process makes
 * at most MAX_ATTEMPTS_IN_FLIGHT_PER_MERCHANT attempts of one merchant at once; the rest of its deliveries wait
 * their turn (deferred, not lost), and another merchant's delivery goes out while the first one's endpoints hold
 * every request they got.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { createTenant } from '../helpers/factories';
import { stack } from '../helpers/stack';
import type { temporal } from '@temporalio/proto';
import { createConfig, recordTestEvent, startReceiver, waitUntil } from '../helpers/webhooks';
import { DELIVERY_TIMEOUT_MS, MAX_ATTEMPTS_IN_FLIGHT_PER_MERCHANT } from '../../activities/webhooks/deliver';

/** The activity results in a workflow history, as JSON text. */
const activityResults = (history: temporal.api.history.v1.IHistory) =>
  (history.events ?? []).flatMap((event) =>
    (event.activityTaskCompletedEventAttributes?.result?.payloads ?? []).map((payload) =>
      Buffer.from(payload.data ?? []).toString('utf8'),
    ),
  );

/** Requests the tarpits hold now, and the most they held at once (all tarpits together). */
interface Held {
  now: number;
  max: number;
}

/**
 * An endpoint that holds every request until released, counting the requests held in `held`. A request is answered
 * 503 shortly before the attempt's deadline, so the held count drops before the attempt ends: a request the
 * client aborts at its deadline would still count here until its socket's close is seen, after the attempt's
 * slot has gone to the next attempt.
 */
async function tarpit(held: Held) {
  let release: () => void = () => undefined;
  const released = new Promise<void>((resolve) => (release = resolve));
  const state = { delivered: 0, release };
  const server = http.createServer((req, res) => {
    req.resume();
    held.now += 1;
    held.max = Math.max(held.max, held.now);
    let holding = true;
    const letGo = () => {
      if (!holding) return false;
      holding = false;
      held.now -= 1;
      return true;
    };
    const answer = (status: number) => {
      if (!letGo()) return;
      if (status === 200) state.delivered += 1;
      res.writeHead(status).end();
    };
    const beforeDeadline = setTimeout(() => answer(503), DELIVERY_TIMEOUT_MS - 3_000);
    res.on('close', () => {
      clearTimeout(beforeDeadline);
      letGo();
    });
    void released.then(() => answer(200));
  });
  server.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  return {
    state,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe('Webhook fan-out: a per-merchant cap and fairness', () => {
  it("caps one merchant's attempts in flight, defers the rest, and another merchant's delivery goes out meanwhile", async function () {
    this.timeout(180_000);
    const flooder = await createTenant();
    const bystander = await createTenant();
    // Eight origins, two endpoints on each: 16 deliveries per origin, within the delivery pool's 16 connections
    // to one origin, so every attempt made reaches its endpoint.
    const held: Held = { now: 0, max: 0 };
    const pits = await Promise.all(Array.from({ length: 8 }, () => tarpit(held)));
    const receiver = await startReceiver();
    try {
      for (let i = 0; i < 16; i += 1) await createConfig(flooder, { url: pits[i % 8].url });
      await createConfig(bystander, { url: receiver.url('/hook') });
      const cap = MAX_ATTEMPTS_IN_FLIGHT_PER_MERCHANT;
      // 8 events × 16 endpoints = 128 deliveries of one merchant.
      for (let i = 0; i < 8; i += 1) await recordTestEvent(flooder, 'transaction.authorized', { id: `tx_flood_${i}` });

      // The merchant's attempts fill their cap; the deliveries past it are deferred by their workflows.
      await waitUntil(async () => held.now >= cap, 60_000, `${cap} requests held by the flooded endpoints`);
      await waitUntil(
        async () => {
          for await (const execution of stack().api.deps.temporal.client.workflow.list({
            query: `WorkflowType = 'webhookDeliveryWorkflow' AND MerchantId = '${flooder.merchant_id}'`,
          })) {
            const history = await stack()
              .api.deps.temporal.client.workflow.getHandle(execution.workflowId)
              .fetchHistory();
            if (activityResults(history).some((result) => result.includes('"outcome":"deferred"'))) return true;
          }
          return false;
        },
        60_000,
        `a delivery deferred at the merchant cap (held ${held.now}, at most ${held.max} at once)`,
      );

      // Another merchant's event is delivered while the flooded endpoints still hold everything they got.
      await recordTestEvent(bystander, 'transaction.authorized', { id: 'tx_bystander' });
      await receiver.waitFor((requests) => requests.length === 1, 30_000);
      expect(held.now).to.be.at.most(cap);
      expect(held.max, 'requests held at once').to.be.at.most(cap);

      // Released, every deferred delivery is still made.
      for (const pit of pits) pit.state.release();
      await waitUntil(
        async () => pits.reduce((n, pit) => n + pit.state.delivered, 0) >= 128,
        120_000,
        'all 128 deliveries made',
      );
    } finally {
      for (const pit of pits) pit.state.release();
      await Promise.all([...pits.map((pit) => pit.close()), receiver.close()]);
    }
  });
});
