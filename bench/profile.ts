/**
 * `npm run bench:profile -- "<scenario>"`: a CPU profile of the API process alone — in its own process, configured
 * for production, as `npm run bench` runs it, with autocannon (10 connections) in another — while it serves one of
 * the hot-path scenarios (bench/api.ts: "GET /customers/:id", "GET /health/live", "POST /customers (idempotent
 * replay)") or a charge (bench/transactions.ts: "POST /transactions (1 attempt, approved)"). Prints req/s and the
 * API main thread's self time by package or file (as a share and in µs per request) and by function, and writes the
 * .cpuprofile (open it in Chrome DevTools) to test-output/. The profiler runs only while the scenario does.
 * `--floor`: the scenario's floor (bare Koa + pg reading the same row) in its own process instead, the same way, so
 * the two read side by side. BENCH_DURATION (seconds, default 8).
 */
import fs from 'node:fs';
import path from 'node:path';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { stack, startStack, stopStack } from '../test/helpers/stack';
import { startApiProcess, startBaselines, startLoadGenerator } from './processes/fleet';
import { hotPathScenarios } from './api';
import { transactionScenarios } from './transactions';
import { REPO_ROOT } from '../scripts/lib/paths';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
interface Profile {
  startTime: number;
  endTime: number;
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Self time by npm package (node_modules/<pkg>), our own file, or V8/Node internal, as shares of the whole. */
export function selfTimeBy(profile: Profile): Array<[string, number]> {
  const frames = new Map(profile.nodes.map((node) => [node.id, node.callFrame]));
  const totals = new Map<string, number>();
  let all = 0;
  profile.samples.forEach((id, index) => {
    const { url, functionName } = frames.get(id) as ProfileNode['callFrame'];
    const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)?.[1];
    const key =
      pkg ??
      (url
        ? path.relative(REPO_ROOT, url.replace(/^file:\/\//, ''))
        : functionName.startsWith('(')
          ? functionName
          : `(${functionName || 'native'})`);
    const delta = profile.timeDeltas[index] ?? 0;
    totals.set(key, (totals.get(key) ?? 0) + delta);
    all += delta;
  });
  return [...totals].sort((a, b) => b[1] - a[1]).map(([key, time]) => [key, time / all]);
}

/** Self time by function (name, file and line), as shares of the whole: what inside a package costs. */
export function selfTimeByFunction(profile: Profile): Array<[string, number]> {
  const frames = new Map(profile.nodes.map((node) => [node.id, node.callFrame]));
  const totals = new Map<string, number>();
  let all = 0;
  profile.samples.forEach((id, index) => {
    const { url, functionName, lineNumber } = frames.get(id) as ProfileNode['callFrame'];
    const file = url ? path.relative(REPO_ROOT, url.replace(/^file:\/\//, '')) : '';
    const key = `${functionName || '(anonymous)'} ${file}${file ? `:${lineNumber + 1}` : ''}`;
    const delta = profile.timeDeltas[index] ?? 0;
    totals.set(key, (totals.get(key) ?? 0) + delta);
    all += delta;
  });
  return [...totals].sort((a, b) => b[1] - a[1]).map(([key, time]) => [key, time / all]);
}

async function main(): Promise<void> {
  // --floor: the same scenario's floor (bare Koa + pg reading the same row) profiled instead, in its own process.
  const floor = process.argv.includes('--floor');
  const which = process.argv.slice(2).find((arg) => !arg.startsWith('--')) ?? 'GET /customers/:id';
  const duration = Number(process.env.BENCH_DURATION ?? 8);
  process.env.LOG_LEVEL = 'silent';
  Runtime.install({ logger: new DefaultLogger('WARN') });
  await startStack();
  const [api, baselines, load] = await Promise.all([
    startApiProcess(stack().env),
    startBaselines(stack().config.databaseUrl),
    startLoadGenerator(),
  ]);
  try {
    const scenario = which.startsWith('POST /transactions')
      ? (await transactionScenarios(api.url)).find((candidate) => candidate.name === which)
      : (await hotPathScenarios(api.url, baselines.pg)).find((candidate) => candidate.name === which);
    if (!scenario) throw new Error(`No scenario named "${which}" (see bench/api.ts and bench/transactions.ts)`);
    const measured = floor ? (scenario as { floor?: typeof scenario }).floor : scenario;
    if (!measured) throw new Error(`"${which}" has no floor`);
    const run = (seconds: number) => load.run({ ...measured.options, connections: 10, duration: seconds });
    await run(2); // warm-up: JIT, pools, prepared statements
    const { result, profile } = await (floor ? baselines : api).profile(() => run(duration));
    const name = `profile-${which.replace(/\W+/g, '-')}${floor ? '-floor' : ''}.cpuprofile`;
    const file = path.join(REPO_ROOT, 'test-output', name);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, JSON.stringify(profile));
    console.log(
      `${floor ? `the floor of ${which}` : which}: ${Math.round(result.requestsAverage)} req/s, p50 ${result.p50} ms, non-2xx ${result.non2xx}`,
    );
    // Shares of the profile's wall time, and that time per request: comparable between the API and its floor.
    const { startTime, endTime } = profile as Profile;
    const perRequest = (share: number) => ((share * (endTime - startTime)) / result.requestsTotal).toFixed(1);
    console.log(
      `${floor ? 'Floor' : 'API'} main thread self time (the profiler stopping itself shows as "(dispatch)"):`,
    );
    for (const [key, share] of selfTimeBy(profile as Profile).slice(0, 25)) {
      console.log(`${(share * 100).toFixed(1).padStart(5)} % ${perRequest(share).padStart(7)} µs/request  ${key}`);
    }
    console.log('Main thread self time by function:');
    for (const [key, share] of selfTimeByFunction(profile as Profile).slice(0, 30)) {
      console.log(`${(share * 100).toFixed(1).padStart(5)} %  ${key}`);
    }
    console.log(`Profile: ${file}`);
  } finally {
    await Promise.all([load.stop(), baselines.stop(), api.stop()]);
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
