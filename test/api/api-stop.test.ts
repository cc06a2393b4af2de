/**
 * Graceful stop: `startApi().stop()` stops accepting, lets the requests already running finish (bounded), and only
 * then closes Temporal and the ORM — a handler awaiting a workflow must never meet a shut-down channel. Each test
 * runs a second API on the shared stack and stops it while a slow charge (~2 s at the sandbox) is in flight.
 */
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { createLogger } from '../../domain/platform/logger';
import { startApi, type RunningApi } from '../../api/server';
import { api } from '../helpers/http';
import { createTenant, type Tenant } from '../helpers/factories';
import { rows } from '../helpers/db';
import { stack } from '../helpers/stack';
import { cardCharge, cardToken, cascade } from '../helpers/transactions';

const SLOW_CARD = { number: '4000000000000507', cvc: '123', brand: 'visa' };

interface LogLine {
  msg: string;
  status?: number;
  path?: string;
}

/** Errors the process would otherwise report as uncaught while the test ran. */
function watchUncaught() {
  const seen: unknown[] = [];
  const record = (error: unknown) => seen.push(error);
  process.on('uncaughtException', record).on('unhandledRejection', record);
  return {
    seen,
    stop: () => process.off('uncaughtException', record).off('unhandledRejection', record),
  };
}

async function untilTransactionStarted(tenant: Tenant): Promise<void> {
  for (let i = 0; i < 300; i += 1) {
    if ((await rows('select 1 from transactions where merchant_id = ?', [tenant.merchant_id])).length > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error('the charge never started');
}

describe('Stopping the API (startApi().stop())', () => {
  let app: RunningApi | undefined;
  let log: LogLine[];

  beforeEach(async () => {
    log = [];
    const logger = createLogger('info', { write: (line: string) => void log.push(JSON.parse(line) as LogLine) });
    app = await startApi(stack().config, 0, { logger });
  });

  afterEach(async () => {
    await app?.stop();
  });

  it('a request in flight during stop() completes with its answer, and nothing is thrown uncaught', async function () {
    this.timeout(60_000);
    const tenant = await createTenant();
    await cascade(tenant, ['provider_a']);
    const token = await cardToken(tenant, SLOW_CARD);
    const uncaught = watchUncaught();
    try {
      const running = app!;
      const charged = api.post('/transactions', {
        key: tenant.merchant_secret_key,
        body: cardCharge(token),
        headers: { 'idempotency-key': randomUUID() },
        baseUrl: running.url,
      });
      await untilTransactionStarted(tenant);
      app = undefined;
      const [response] = await Promise.all([charged, running.stop()]);
      expect(response.status, response.text).to.equal(201);
      expect(response.body.data.status).to.equal('authorized');
      expect(uncaught.seen).to.deep.equal([]);
    } finally {
      uncaught.stop();
    }
  });

  it('a request whose client went away still finishes before Temporal and the ORM close (no "Channel has been shut down")', async function () {
    this.timeout(60_000);
    const tenant = await createTenant();
    await cascade(tenant, ['provider_a']);
    const token = await cardToken(tenant, SLOW_CARD);
    const uncaught = watchUncaught();
    try {
      const running = app!;
      const client = new AbortController();
      const abandoned = fetch(`${running.url}/api/v1/transactions`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${tenant.merchant_secret_key}`,
          'content-type': 'application/json',
          'idempotency-key': randomUUID(),
        },
        body: JSON.stringify(cardCharge(token)),
        signal: client.signal,
      }).catch(() => undefined);
      await untilTransactionStarted(tenant);
      client.abort();
      await abandoned;
      app = undefined;
      await running.stop();

      expect(uncaught.seen).to.deep.equal([]);
      const charges = log.filter((line) => line.msg === 'request' && line.path === '/api/v1/transactions');
      expect(
        charges.map((line) => line.status),
        JSON.stringify(log.filter((line) => line.msg !== 'request')),
      ).to.deep.equal([201]);
      expect(log.filter((line) => line.msg === 'unhandled error')).to.deep.equal([]);
    } finally {
      uncaught.stop();
    }
  });
});
