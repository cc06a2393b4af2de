import { randomUUID } from 'node:crypto';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { Connection, Client } from '@temporalio/client';
import { startApi } from '../api/server';
import { stack, startStack, stopStack } from '../test/helpers/stack';
import { createTenant } from '../test/helpers/factories';
import { cascade } from '../test/helpers/transactions';
import { createCustomer, saveCard } from '../test/helpers/vault';

const pg = require('pg');
const stats = new Map<string, { n: number; ms: number }>();
let recording = false;
const origQuery = pg.Client.prototype.query;
const note = (text: string, t0: number) => {
  if (!recording) return;
  const k = String(text).replace(/\s+/g, ' ').replace(/'[^']*'/g, '?').replace(/\b\d+\b/g, 'N').slice(0, 160);
  const s = stats.get(k) ?? { n: 0, ms: 0 };
  s.n++; s.ms += performance.now() - t0; stats.set(k, s);
};
pg.Client.prototype.query = function (this: unknown, config: any, values?: any, cb?: any) {
  const text = typeof config === 'string' ? config : config?.text ?? config?.name ?? '?';
  const t0 = performance.now();
  if (typeof values === 'function') { const f = values; values = (...a: any[]) => { note(text, t0); f(...a); }; }
  else if (typeof cb === 'function') { const f = cb; cb = (...a: any[]) => { note(text, t0); f(...a); }; }
  else if (config && typeof config.callback === 'function') { const f = config.callback; config.callback = (...a: any[]) => { note(text, t0); f(...a); }; }
  const res = origQuery.call(this, config, values, cb);
  if (res && typeof res.then === 'function') res.then(() => note(text, t0), () => undefined);
  return res;
};
async function main() {
  process.env.LOG_LEVEL = 'silent';
  Runtime.install({ logger: new DefaultLogger('WARN') });
  await startStack();
  const api = await startApi({ ...stack().config, validateResponses: false }, 0, { workerConnection: stack().worker.connection } as never);
  const tenant = await createTenant();
  await cascade(tenant, ['provider_a']);
  const instrument = await saveCard(tenant, await createCustomer(tenant));
  const body = JSON.stringify({ payment_method: 'credit_card', charge_type: 'payment', country: 'US', amount: 1500, currency: 'USD', payment_instrument_id: instrument.paymentInstrumentId ?? instrument.id });
  const times: number[] = [];
  let last = '';
  for (let i = 0; i < 40; i++) {
    if (i === 20) recording = true;
    const t0 = performance.now();
    const res = await fetch(`${api.url}/api/v1/transactions`, { method: 'POST', headers: { authorization: `Bearer ${tenant.merchant_secret_key}`, 'content-type': 'application/json', 'idempotency-key': randomUUID() }, body });
    const json = await res.json() as any;
    times.push(performance.now() - t0);
    last = json.data?.id;
    if (res.status !== 201) console.log(res.status, JSON.stringify(json));
  }
  recording = false;
  for (const [k, v] of [...stats].sort((a, b) => b[1].ms - a[1].ms)) console.log((v.n / 20).toFixed(1).padStart(5), (v.ms / 20).toFixed(2).padStart(7), k);
  times.sort((a, b) => a - b);
  console.log('p50', times[20].toFixed(1), 'min', times[0].toFixed(1), 'max', times[39].toFixed(1));
  {
    let n = 0; const t0 = performance.now();
    const lane = async () => { while (n < 150) { n++; const res = await fetch(`${api.url}/api/v1/transactions`, { method: 'POST', headers: { authorization: `Bearer ${tenant.merchant_secret_key}`, 'content-type': 'application/json', 'idempotency-key': randomUUID() }, body }); await res.text(); if (res.status !== 201) console.log('status', res.status); } };
    await Promise.all(Array.from({ length: 10 }, lane));
    console.log('conc10', (150 / ((performance.now() - t0) / 1000)).toFixed(1), 'charges/s');
  }
  const connection = await Connection.connect({ address: stack().config.temporal.address });
  const client = new Client({ connection });
  const history = await client.workflow.getHandle(`charge-${last}`).fetchHistory();
  const t0 = Number(history.events![0].eventTime!.seconds) * 1000 + history.events![0].eventTime!.nanos! / 1e6;
  for (const e of history.events!) {
    const t = Number(e.eventTime!.seconds) * 1000 + e.eventTime!.nanos! / 1e6;
    const attrs = e.activityTaskScheduledEventAttributes?.activityType?.name ?? e.markerRecordedEventAttributes?.markerName ?? '';
    console.log((t - t0).toFixed(1).padStart(8), e.eventType, attrs);
  }
  await api.stop();
  await stopStack();
}
main().then(() => process.exit(0), (e) => { console.error(e); process.exit(1); });
