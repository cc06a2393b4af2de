/**
 * `npx tsx bench/profile-telemetry.ts`: where telemetry's cost goes in the API process. The API runs in its own
 * process, configured for production (bench/processes/api.ts), three times: with telemetry off (no metrics endpoint,
 * no OTLP endpoint), and on as the telemetry bench runs it (metrics served, parentbased_traceidratio at 0.1, the
 * worker in this process tracing too) exporting to a real Jaeger, then to a sink that discards what it receives
 * (telemetry-sink.ts). Each time its main thread is profiled while autocannon,
 * in a process of its own, sends `GET /customers/:id` for BENCH_DURATION seconds (default 8) and then 300 1-attempt
 * charges. Prints, per scenario and phase, the API main thread's CPU per request (from /proc), the telemetry
 * frames' share of it and the garbage collector's, as µs per request.
 *
 * A sample is telemetry's when the innermost frame from a JavaScript file (past Node's internals and native code,
 * which then count for their caller) is in OpenTelemetry, prom-client, the Temporal OpenTelemetry interceptors or
 * our telemetry files. Shares are of the samples with a JavaScript frame: the profiler samples wall time, so on a
 * loaded machine a descheduled thread's time lands in its last frame, and the µs are those shares of the thread's
 * CPU. The .cpuprofile files go to test-output/ (open them in Chrome DevTools).
 */
import fs from 'node:fs';
import path from 'node:path';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { startJaeger } from '../scripts/lib/jaeger';
import { startTracing } from '../domain/platform/tracing';
import { stack, startStack, stopStack } from '../test/helpers/stack';
import { freePort } from '../test/helpers/ports';
import { REPO_ROOT } from '../scripts/lib/paths';
import { hotPathScenarios } from './api';
import { threadSnapshot } from './process-cpu';
import { startApiProcess, startBaselines, startLoadGenerator } from './processes/fleet';
import { transactionScenarios } from './transactions';
import { startOtlpSink } from './telemetry-sink';

interface Frame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface Profile {
  startTime: number;
  endTime: number;
  nodes: Array<{ id: number; callFrame: Frame; children?: number[] }>;
  samples: number[];
  timeDeltas: number[];
}

const TELEMETRY =
  /node_modules\/(@opentelemetry|prom-client|@temporalio\/interceptors-opentelemetry)\/|api\/http\/telemetry|platform\/(tracing|metrics)/;
const CHARGES = 300;

/** The innermost frame of a JavaScript file at or above each node: who a sample's native or internal work is for. */
function owners(profile: Profile): Map<number, Frame | undefined> {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const owner = new Map<number, Frame | undefined>();
  const resolve = (id: number | undefined): Frame | undefined => {
    if (id === undefined) return undefined;
    if (owner.has(id)) return owner.get(id);
    const frame = byId.get(id)!.callFrame;
    const found = /^file:|^\//.test(frame.url) ? frame : resolve(parent.get(id));
    owner.set(id, found);
    return found;
  };
  for (const node of profile.nodes) resolve(node.id);
  return owner;
}

/** The share of the samples not idle spent in V8's garbage collector (its "(garbage collector)" node). */
function gcShare(profile: Profile): number {
  const name = new Map(profile.nodes.map((node) => [node.id, node.callFrame.functionName]));
  let busy = 0;
  let gc = 0;
  profile.samples.forEach((id, index) => {
    const delta = profile.timeDeltas[index] ?? 0;
    if (name.get(id) === '(idle)') return;
    busy += delta;
    if (name.get(id) === '(garbage collector)') gc += delta;
  });
  return gc / busy;
}

/** The telemetry samples' share of the samples with a JavaScript frame, in all and by function. */
function telemetryShares(profile: Profile): { share: number; top: Array<[string, number]> } {
  const owner = owners(profile);
  const byFunction = new Map<string, number>();
  let js = 0;
  let telemetry = 0;
  profile.samples.forEach((id, index) => {
    const frame = owner.get(id);
    if (!frame) return;
    const delta = profile.timeDeltas[index] ?? 0;
    js += delta;
    if (!TELEMETRY.test(frame.url)) return;
    telemetry += delta;
    const file = path.relative(REPO_ROOT, frame.url.replace(/^file:\/\//, '')).replace(/^.*node_modules\//, '');
    const key = `${frame.functionName || '(anonymous)'} ${file}:${frame.lineNumber + 1}`;
    byFunction.set(key, (byFunction.get(key) ?? 0) + delta);
  });
  const top = [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, 15);
  return { share: telemetry / js, top: top.map(([key, time]) => [key, time / js]) };
}

async function main(): Promise<void> {
  const duration = Number(process.env.BENCH_DURATION ?? 8);
  process.env.LOG_LEVEL = 'silent';
  Runtime.install({ logger: new DefaultLogger('WARN') });
  await startStack();
  const [uiPort, otlpPort, queryGrpcPort, otlpGrpcPort] = await Promise.all([1, 2, 3, 4].map(() => freePort()));
  const jaeger = await startJaeger({ uiPort, otlpPort, queryGrpcPort, otlpGrpcPort });
  if (!jaeger) throw new Error('no Jaeger binary and no Go toolchain to build one');
  const [baselines, load] = await Promise.all([startBaselines(stack().config.databaseUrl), startLoadGenerator()]);
  const sink = await startOtlpSink();
  const on = (otlpEndpoint: string) => ({
    API_METRICS_PORT: '0',
    OTEL_EXPORTER_OTLP_ENDPOINT: otlpEndpoint,
    OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
    OTEL_TRACES_SAMPLER_ARG: '0.1',
  });
  const phases: Record<string, NodeJS.ProcessEnv> = {
    off: { API_METRICS_PORT: 'off', OTEL_EXPORTER_OTLP_ENDPOINT: '' },
    'on-jaeger': on(jaeger.otlpEndpoint),
    'on-sink': on(sink.otlpEndpoint),
  };
  try {
    for (const [phase, env] of Object.entries(phases)) {
      const tracing = env.OTEL_EXPORTER_OTLP_ENDPOINT
        ? startTracing(
            {
              otlpTracesUrl: `${env.OTEL_EXPORTER_OTLP_ENDPOINT}/v1/traces`,
              sampler: 'parentbased_traceidratio',
              sampleRatio: 0.1,
              serviceName: null,
            },
            'worker',
          )
        : null;
      const api = await startApiProcess({ ...stack().env, ...env });
      try {
        const read = (await hotPathScenarios(api.url, baselines.pg)).find((s) => s.figure === 'customer_get')!;
        const [charge] = await transactionScenarios(api.url);
        const runs = [
          { name: 'GET /customers/:id', options: { ...read.options, duration } },
          { name: '1-attempt charge', options: { ...charge.options, amount: CHARGES } },
        ];
        for (const { name, options } of runs) {
          await load.run({ ...options, connections: 10, ...('amount' in options ? { amount: 30 } : { duration: 2 }) });
          const mainThread = () => threadSnapshot(api.pid).get(api.pid)?.cpuMs ?? NaN;
          const cpuBefore = mainThread();
          const { result, profile } = await api.profile(() => load.run({ ...options, connections: 10 }));
          const cpuUs = ((mainThread() - cpuBefore) * 1000) / result.requestsTotal;
          const file = path.join(
            REPO_ROOT,
            'test-output',
            `telemetry-${phase}-${name.replace(/\W+/g, '-')}.cpuprofile`,
          );
          fs.mkdirSync(path.dirname(file), { recursive: true });
          fs.writeFileSync(file, JSON.stringify(profile));
          const { share, top } = telemetryShares(profile as Profile);
          const gc = gcShare(profile as Profile);
          console.log(
            `\n${name}, telemetry ${phase}: ${Math.round(result.requestsAverage)} req/s, non-2xx ${result.non2xx}; ` +
              `API main thread ${cpuUs.toFixed(0)} µs CPU/request, telemetry frames ${(share * 100).toFixed(1)} % ` +
              `of its JavaScript samples = ${(share * cpuUs).toFixed(1)} µs; garbage collection ` +
              `${(gc * 100).toFixed(1)} % of its busy samples = ${(gc * cpuUs).toFixed(1)} µs`,
          );
          for (const [key, part] of top) console.log(`${(part * cpuUs).toFixed(1).padStart(7)} µs  ${key}`);
          console.log(`Profile: ${file}`);
        }
      } finally {
        await api.stop();
        await tracing?.stop();
      }
    }
  } finally {
    await Promise.all([load.stop(), baselines.stop(), jaeger.stop(), sink.stop()]);
    await stopStack();
  }
}

if (require.main === module) {
  main().then(
    () => process.exit(0),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
