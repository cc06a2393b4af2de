/**
 * `npx tsx bench/charge-timeline.ts [N]`: where one charge's wall time goes, one client, API in the worker's process
 * (as the bench's one-client row). Runs N (default 30) 1-attempt charges one after the other, drops the first 10
 * (JIT, pools), and splits each into phases from its workflow history's event times plus the client's clock:
 * request → workflow started, each workflow task's wait and run, the local activities, the attempt activity's
 * dispatch and run, and workflow completed → response. Prints the median of each phase, and the history's shape
 * (events, workflow tasks, activities, local activities, search-attribute upserts). Not part of `npm run bench`:
 * the profile behind the latency rows in docs/benchmarks.md ("What stands in the way").
 */
import { randomUUID } from 'node:crypto';
import { Connection, Client } from '@temporalio/client';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { temporal } from '@temporalio/proto';
import { stack, startStack, stopStack } from '../test/helpers/stack';
import { createTenant } from '../test/helpers/factories';
import { cascade } from '../test/helpers/transactions';
import { createCustomer, saveCard } from '../test/helpers/vault';
import { api } from '../test/helpers/http';
import { benchChargeBody } from './transactions';

const EventType = temporal.api.enums.v1.EventType;
type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

const millis = (event: HistoryEvent) => {
  const time = event.eventTime!;
  return Number(time.seconds ?? 0) * 1000 + (time.nanos ?? 0) / 1e6;
};

/** Named phases of one charge, in ms, from its history and the client's request/response times. */
function phases(events: HistoryEvent[], sentAt: number, answeredAt: number): Map<string, number> {
  const out = new Map<string, number>();
  const add = (name: string, ms: number) => out.set(name, (out.get(name) ?? 0) + ms);
  const at = (index: number) => millis(events[index]);
  add('request → workflow started (API: auth, idempotency, start)', at(0) - sentAt);
  let task = 0;
  for (let i = 1; i < events.length; i += 1) {
    const type = events[i].eventType;
    const gap = at(i) - at(i - 1);
    if (type === EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED) add(`workflow task ${task + 1}: scheduled → started`, gap);
    else if (type === EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED) {
      task += 1;
      add(`workflow task ${task}: started → completed (worker; local activities inside)`, gap);
    } else if (type === EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED) add('activity: scheduled → started', gap);
    else if (type === EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED) add('activity: started → completed (attempt)', gap);
    else if (type === EventType.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED)
      add('server: previous event → next task scheduled', gap);
    else add('server: other events', gap);
  }
  add('workflow completed → response (API reads the result)', answeredAt - at(events.length - 1));
  add('total', answeredAt - sentAt);
  return out;
}

/** The history's shape: its events, workflow tasks, activities, local activities (markers) and visibility upserts. */
function shape(events: HistoryEvent[]): Map<string, number> {
  const count = (type: temporal.api.enums.v1.EventType) => events.filter((event) => event.eventType === type).length;
  return new Map([
    ['history events', events.length],
    ['workflow tasks', count(EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED)],
    ['activities', count(EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED)],
    ['local activities (markers)', count(EventType.EVENT_TYPE_MARKER_RECORDED)],
    ['search-attribute upserts', count(EventType.EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES)],
  ]);
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function main(): Promise<void> {
  const total = Number(process.argv[2] ?? 30);
  process.env.LOG_LEVEL = 'silent';
  Runtime.install({ logger: new DefaultLogger('WARN') });
  await startStack();
  const connection = await Connection.connect({ address: stack().config.temporal.address });
  try {
    const client = new Client({ connection, namespace: stack().config.temporal.namespace });
    const tenant = await createTenant();
    await cascade(tenant, ['provider_a']);
    const instrument = await saveCard(tenant, await createCustomer(tenant));
    const samples: Array<Map<string, number>> = [];
    const shapes: Array<Map<string, number>> = [];
    for (let n = 0; n < total; n += 1) {
      const sentAt = Date.now();
      const res = await api.post('/transactions', {
        key: tenant.merchant_secret_key,
        headers: { 'idempotency-key': randomUUID() },
        body: benchChargeBody(instrument.paymentInstrumentId ?? instrument.id),
      });
      const answeredAt = Date.now();
      if (res.status !== 201) throw new Error(`charge failed: ${res.status} ${res.text}`);
      if (n < 10) continue;
      const [row] = await stack()
        .orm.em.fork()
        .execute<Array<{ workflow_id: string }>>('select workflow_id from transactions where id = ?', [
          (res.body as { data: { id: string } }).data.id,
        ]);
      const history = await client.workflow.getHandle(row.workflow_id).fetchHistory();
      samples.push(phases(history.events ?? [], sentAt, answeredAt));
      shapes.push(shape(history.events ?? []));
    }
    const names = [...new Set(samples.flatMap((sample) => [...sample.keys()]))];
    process.stdout.write(`One-client 1-attempt charges, median of ${samples.length} (ms):\n`);
    for (const name of names)
      process.stdout.write(
        `${median(samples.map((s) => s.get(name) ?? 0))
          .toFixed(1)
          .padStart(7)}  ${name}\n`,
      );
    process.stdout.write("One charge's history (median):\n");
    for (const name of shapes[0]?.keys() ?? [])
      process.stdout.write(`${String(median(shapes.map((s) => s.get(name) ?? 0))).padStart(7)}  ${name}\n`);
  } finally {
    await connection.close();
    await stopStack();
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
    process.exit(1);
  },
);
