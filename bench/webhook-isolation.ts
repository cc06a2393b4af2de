/**
 * Charges while merchants' webhook endpoints hang, for `npm run bench`: BENCH_HANGING_DELIVERIES (default 150,
 * more than a Worker's 100 activity slots) deliveries go to an endpoint that accepts the connection and never
 * answers, so each holds its slot until the 15 s delivery timeout; meanwhile charges run one at a time through
 * the API. Reported: charge latency before the burst and during it.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { recordEvent } from '../domain/events/events.outbox';
import { stack } from '../test/helpers/stack';
import { createTenant } from '../test/helpers/factories';
import { cascade } from '../test/helpers/transactions';
import { createCustomer, saveCard } from '../test/helpers/vault';
import { benchChargeBody } from './transactions';

export interface IsolationResult {
  hangingDeliveries: number;
  /** Connections the hanging endpoint held open when the measured charges started. */
  heldConnections: number;
  before: number[];
  during: number[];
}

const CHARGES = 10;

export async function measureChargesDuringHangingWebhooks(
  apiUrl: string,
  /**
   * The stack's test-mode API, for the webhook configuration: a production API refuses a plain-http loopback
   * endpoint (the SSRF guard), and the hanging endpoint is one.
   */
  fixturesUrl: string,
  log: (message: string) => void,
): Promise<IsolationResult> {
  const hangingDeliveries = Number(process.env.BENCH_HANGING_DELIVERIES ?? 150);
  let held = 0;
  const hanging = http.createServer(() => undefined).listen(0, '127.0.0.1');
  hanging.on('connection', (socket) => {
    held += 1;
    socket.on('close', () => (held -= 1));
  });
  await new Promise((resolve) => hanging.once('listening', resolve));
  try {
    const slow = await createTenant();
    const config = await fetch(`${fixturesUrl}/api/v1/merchants/${slow.merchant_id}/webhook-configs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${slow.merchant_secret_key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: `http://127.0.0.1:${(hanging.address() as AddressInfo).port}/hook` }),
    });
    if (config.status !== 201) throw new Error(`creating the hanging webhook configuration → ${config.status}`);

    const payer = await createTenant();
    await cascade(payer, ['provider_a']);
    const instrument = await saveCard(payer, await createCustomer(payer));
    const chargeOnce = async () => {
      const started = Date.now();
      const response = await fetch(`${apiUrl}/api/v1/transactions`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${payer.merchant_secret_key}`,
          'content-type': 'application/json',
          'idempotency-key': randomUUID(),
        },
        body: JSON.stringify(benchChargeBody(instrument.paymentInstrumentId ?? instrument.id)),
      });
      await response.text();
      if (response.status !== 201) throw new Error(`charge → ${response.status}`);
      return Date.now() - started;
    };
    const sequential = async () => {
      const latencies: number[] = [];
      for (let i = 0; i < CHARGES; i += 1) latencies.push(await chargeOnce());
      return latencies;
    };

    log(
      `isolation: ${CHARGES} charges, then ${hangingDeliveries} deliveries to an endpoint that never answers, then ${CHARGES} more`,
    );
    const before = await sequential();
    for (let n = 0; n < hangingDeliveries; n += 1) {
      await stack()
        .orm.em.fork()
        .transactional((em) =>
          recordEvent(em, {
            organizationId: slow.organization_id,
            merchantId: slow.merchant_id,
            livemode: true,
            type: 'transaction.authorized',
            object: { id: `tx_hang${n}`, status: 'authorized' },
          }),
        );
    }
    // Wait until the deliveries hold as many connections as they can (all slots busy) before measuring.
    const target = Math.min(hangingDeliveries, 100);
    for (let i = 0; i < 100 && held < target; i += 1) await new Promise((resolve) => setTimeout(resolve, 100));
    const heldConnections = held;
    const during = await sequential();
    return { hangingDeliveries, heldConnections, before, during };
  } finally {
    hanging.closeAllConnections();
    await new Promise((resolve) => hanging.close(resolve));
  }
}

export function isolationReport(result: IsolationResult): { text: string[]; markdown: string[] } {
  const stats = (values: number[]) => {
    const sorted = [...values].sort((a, b) => a - b);
    return { p50: sorted[Math.floor(sorted.length / 2)], max: sorted[sorted.length - 1] };
  };
  const [before, during] = [stats(result.before), stats(result.during)];
  const title = `charges during ${result.hangingDeliveries} hanging webhook deliveries (${result.heldConnections} connections held)`;
  return {
    text: [
      `Charge latency, one at a time: before p50 ${before.p50} ms (max ${before.max}); ${title}: p50 ${during.p50} ms (max ${during.max})`,
    ],
    markdown: [
      '| Scenario | Charge p50 (ms) | Charge max (ms) |',
      '| --- | ---: | ---: |',
      `| charges, one at a time, nothing else running | ${before.p50} | ${before.max} |`,
      `| ${title} | ${during.p50} | ${during.max} |`,
    ],
  };
}
