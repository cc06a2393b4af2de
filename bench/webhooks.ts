/**
 * Webhook delivery throughput for `npm run bench`: events recorded the way producers record them
 * (recordEvent in a transaction) fan out through the real outbox listener, Temporal and the delivery activity to
 * a local receiver. Reported: deliveries per second from the first commit to the last receipt, and the
 * commit-to-receipt latency per delivery — in a burst, and when idle (one event at a time, each recorded after
 * the previous one arrived, before the burst).
 *
 * Env: BENCH_WEBHOOK_EVENTS (events recorded, default 300), BENCH_WEBHOOK_ENDPOINTS (endpoints each event goes
 * to, default 2), BENCH_WEBHOOK_IDLE_EVENTS (events of the idle measurement, default 20), BENCH_CONNECTIONS
 * (concurrent producers, shared with the HTTP scenarios).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { recordEvent } from '../domain/events/events.outbox';
import { stack } from '../test/helpers/stack';
import { createTenant } from '../test/helpers/factories';

export interface WebhookBenchResult {
  events: number;
  endpoints: number;
  deliveries: number;
  seconds: number;
  deliveriesPerSecond: number;
  p50: number;
  p99: number;
  /** Commit → receipt of deliveries made one event at a time on an otherwise idle stack. */
  idle: { deliveries: number; p50: number; p99: number };
}

function envInt(name: string, fallback: number): number {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer`);
  return value;
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

export async function measureWebhookDeliveries(
  apiUrl: string,
  log: (message: string) => void,
): Promise<WebhookBenchResult> {
  const events = envInt('BENCH_WEBHOOK_EVENTS', 300);
  const endpoints = envInt('BENCH_WEBHOOK_ENDPOINTS', 2);
  const producers = envInt('BENCH_CONNECTIONS', 10);
  const idleEvents = envInt('BENCH_WEBHOOK_IDLE_EVENTS', 20);
  const expected = events * endpoints;

  const committedAt = new Map<string, number>();
  // Receipts are matched to commit times afterwards: a delivery may arrive before its producer's await returns
  // (counted as 0 ms then).
  let receipts: { id: string; at: number }[] = [];
  const latenciesOf = (list: { id: string; at: number }[]) =>
    list.map((receipt) => Math.max(0, receipt.at - (committedAt.get(receipt.id) ?? receipt.at))).sort((a, b) => a - b);
  let lastReceipt = 0;
  let expecting = Infinity;
  let allReceived: () => void = () => undefined;
  let idleReceived: () => void = () => undefined;
  const done = new Promise<void>((resolve) => {
    allReceived = resolve;
  });
  const receiver = http
    .createServer((req, res) => {
      const id = req.headers['webhook-id'] as string;
      req.resume().on('end', () => {
        res.writeHead(200).end();
        const now = Date.now();
        receipts.push({ id, at: now });
        lastReceipt = now;
        if (receipts.length === expecting) allReceived();
        idleReceived();
      });
    })
    .listen(0, '127.0.0.1');
  await new Promise((resolve) => receiver.once('listening', resolve));
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

  try {
    const tenant = await createTenant();
    for (let i = 0; i < endpoints; i += 1) {
      const response = await fetch(`${apiUrl}/api/v1/merchants/${tenant.merchant_id}/webhook-configs`, {
        method: 'POST',
        headers: { authorization: `Bearer ${tenant.merchant_secret_key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ url: `${url}?endpoint=${i}` }),
      });
      if (response.status !== 201)
        throw new Error(`creating a webhook configuration → ${response.status} ${await response.text()}`);
    }
    // Endpoints must predate the events they receive.
    await new Promise((resolve) => setTimeout(resolve, 20));

    const record = (n: number) =>
      stack()
        .orm.em.fork()
        .transactional((em) =>
          recordEvent(em, {
            organizationId: tenant.organization_id,
            merchantId: tenant.merchant_id,
            livemode: true,
            type: 'transaction.authorized',
            object: { id: `tx_bench${n}`, amount_authorized: 1000 + n, currency: 'BRL', status: 'authorized' },
          }),
        );

    log(`webhooks: idle, ${idleEvents} events × ${endpoints} endpoints, one event at a time`);
    for (let i = 0; i < idleEvents; i += 1) {
      const arrived = new Promise<void>((resolve) => {
        idleReceived = () => {
          if (receipts.length >= (i + 1) * endpoints) resolve();
        };
      });
      const event = await record(-1 - i);
      committedAt.set(event.id, Date.now());
      await Promise.race([arrived, new Promise((resolve) => setTimeout(resolve, 30_000))]);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const idleSorted = latenciesOf(receipts);
    if (idleSorted.length < idleEvents * endpoints)
      throw new Error(`webhooks: only ${idleSorted.length} of ${idleEvents * endpoints} idle deliveries arrived`);
    idleReceived = () => undefined;
    receipts = [];
    expecting = expected;

    log(`webhooks: ${events} events × ${endpoints} endpoints, ${producers} concurrent producers`);
    const started = Date.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: producers }, async () => {
        while (next < events) {
          const n = next++;
          const event = await record(n);
          committedAt.set(event.id, Date.now());
        }
      }),
    );
    const timeout = setTimeout(() => allReceived(), 5 * 60 * 1000);
    await done;
    clearTimeout(timeout);
    if (receipts.length < expected)
      throw new Error(`webhooks: only ${receipts.length} of ${expected} deliveries arrived within 5 minutes`);
    const seconds = (lastReceipt - started) / 1000;
    const sorted = latenciesOf(receipts);
    return {
      events,
      endpoints,
      deliveries: expected,
      seconds,
      deliveriesPerSecond: expected / seconds,
      p50: percentile(sorted, 50),
      p99: percentile(sorted, 99),
      idle: { deliveries: idleSorted.length, p50: percentile(idleSorted, 50), p99: percentile(idleSorted, 99) },
    };
  } finally {
    receiver.closeAllConnections();
    await new Promise((resolve) => receiver.close(resolve));
  }
}

export function webhookReport(result: WebhookBenchResult): { text: string[]; markdown: string[] } {
  const summary = `${result.deliveries} deliveries (${result.events} events × ${result.endpoints} endpoints) in ${result.seconds.toFixed(1)} s`;
  return {
    text: [
      `Webhook deliveries to a local receiver: ${result.deliveriesPerSecond.toFixed(1)} deliveries/s — ${summary}`,
      `  commit → receipt latency: p50 ${result.p50} ms, p99 ${result.p99} ms`,
      `  idle (one event at a time, ${result.idle.deliveries} deliveries): commit → receipt p50 ${result.idle.p50} ms, p99 ${result.idle.p99} ms`,
    ],
    markdown: [
      '| Scenario | Deliveries/s | Commit → receipt p50 (ms) | p99 (ms) | Deliveries |',
      '| --- | ---: | ---: | ---: | ---: |',
      `| webhook delivery (recordEvent → local receiver) | ${result.deliveriesPerSecond.toFixed(1)} | ${result.p50} | ${result.p99} | ${result.deliveries} |`,
      `| webhook delivery, idle (one event at a time) | — | ${result.idle.p50} | ${result.idle.p99} | ${result.idle.deliveries} |`,
    ],
  };
}
