/**
 * Webhook delivery throughput for `npm run bench`: events recorded the way producers record them
 * (recordEvent in a transaction) fan out through the real outbox listener, Temporal and the delivery activity to
 * a local receiver. Reported: deliveries per second from the first commit to the last receipt, and the
 * commit-to-receipt latency per delivery.
 *
 * Env: BENCH_WEBHOOK_EVENTS (events recorded, default 300), BENCH_WEBHOOK_ENDPOINTS (endpoints each event goes
 * to, default 2), BENCH_CONNECTIONS (concurrent producers, shared with the HTTP scenarios).
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
}

function envInt(name: string, fallback: number): number {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer`);
  return value;
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

export interface WebhookBenchOptions {
  events?: number;
  endpoints?: number;
  producers?: number;
  /** Idle latency: each producer waits for its event's deliveries before recording the next. */
  oneAtATime?: boolean;
}

export async function measureWebhookDeliveries(
  apiUrl: string,
  log: (message: string) => void,
  options: WebhookBenchOptions = {},
): Promise<WebhookBenchResult> {
  const events = options.events ?? envInt('BENCH_WEBHOOK_EVENTS', 300);
  const endpoints = options.endpoints ?? envInt('BENCH_WEBHOOK_ENDPOINTS', 2);
  const producers = options.producers ?? envInt('BENCH_CONNECTIONS', 10);
  const expected = events * endpoints;
  const waiting = new Map<string, { left: number; resolve: () => void }>();

  const committedAt = new Map<string, number>();
  const latencies: number[] = [];
  let lastReceipt = 0;
  let allReceived: () => void = () => undefined;
  const done = new Promise<void>((resolve) => {
    allReceived = resolve;
  });
  const receiver = http
    .createServer((req, res) => {
      const id = req.headers['webhook-id'] as string;
      req.resume().on('end', () => {
        res.writeHead(200).end();
        const now = Date.now();
        latencies.push(now - (committedAt.get(id) ?? now));
        lastReceipt = now;
        const waiter = waiting.get(id);
        if (waiter && --waiter.left === 0) waiter.resolve();
        if (latencies.length === expected) allReceived();
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

    log(`webhooks: ${events} events × ${endpoints} endpoints, ${producers} concurrent producers`);
    const started = Date.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: producers }, async () => {
        while (next < events) {
          const n = next++;
          const event = await stack()
            .orm.em.fork()
            .transactional((em) =>
              recordEvent(em, {
                organizationId: tenant.organization_id,
                merchantId: tenant.merchant_id,
                type: 'transaction.authorized',
                object: { id: `tx_bench${n}`, amount_authorized: 1000 + n, currency: 'BRL', status: 'authorized' },
              }),
            );
          committedAt.set(event.id, Date.now());
          if (options.oneAtATime) {
            await new Promise<void>((resolve) => waiting.set(event.id, { left: endpoints, resolve }));
          }
        }
      }),
    );
    const timeout = setTimeout(() => allReceived(), 5 * 60 * 1000);
    await done;
    clearTimeout(timeout);
    if (latencies.length < expected)
      throw new Error(`webhooks: only ${latencies.length} of ${expected} deliveries arrived within 5 minutes`);
    const seconds = (lastReceipt - started) / 1000;
    const sorted = [...latencies].sort((a, b) => a - b);
    return {
      events,
      endpoints,
      deliveries: expected,
      seconds,
      deliveriesPerSecond: expected / seconds,
      p50: percentile(sorted, 50),
      p99: percentile(sorted, 99),
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
    ],
    markdown: [
      '| Scenario | Deliveries/s | Commit → receipt p50 (ms) | p99 (ms) | Deliveries |',
      '| --- | ---: | ---: | ---: | ---: |',
      `| webhook delivery (recordEvent → local receiver) | ${result.deliveriesPerSecond.toFixed(1)} | ${result.p50} | ${result.p99} | ${result.deliveries} |`,
    ],
  };
}
