/**
 * `npx tsx bench/request-cpu-ab.ts <other worktree> [rounds]`: the API's CPU per request on the two hot reads (and an
 * unknown /api/v1 path: what the middleware stack alone costs), for this tree's code and another's (a detached
 * worktree of main, say) side by side in one run: both APIs configured for production in processes of their own, on
 * one stack, measured in alternation for `rounds` rounds of 3 s each, with bare Koa + pg reading the same row as the
 * floor. On a shared machine requests/s moves with the load; CPU per request (from /proc) hardly does, and
 * alternating the two trees within a round puts both under the same load. Prints medians over the rounds.
 */
import { fork } from 'node:child_process';
import path from 'node:path';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { stack, startStack, stopStack } from '../test/helpers/stack';
import { startBaselines, startLoadGenerator, startApiProcess } from './processes/fleet';
import { productionEnv } from './processes/api';
import { hotPathScenarios, warmUp } from './api';
import { servingCpu, servingCpuSince } from './process-cpu';
import type { HttpScenario } from './harness';

const SECONDS = 3;
/** Two APIs on one machine: neither takes the fixed metrics port (other runs may hold it too). */
const apiEnv = () => ({ ...stack().env, API_METRICS_PORT: '0' });

/** The other tree's API, forked from its own bench/processes/api.ts (its code, this run's stack). */
async function startOtherApi(tree: string): Promise<{ url: string; pid: number; stop(): void }> {
  const child = fork(path.join(tree, 'bench/processes/api.ts'), [], {
    env: productionEnv(apiEnv()),
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    cwd: tree,
  });
  const { url } = await new Promise<{ url: string }>((resolve, reject) => {
    child.once('message', (message) => resolve(message as { url: string }));
    child.once('exit', (code) => reject(new Error(`${tree}'s API exited (${code})`)));
  });
  return { url, pid: child.pid as number, stop: () => child.kill('SIGTERM') };
}

const NEVER_WRITES = process.argv.includes('--other-never-writes');
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function main(): Promise<void> {
  const [other, roundsArg] = process.argv.slice(2).filter((arg) => !arg.startsWith('--'));
  if (!other) throw new Error('usage: npx tsx bench/request-cpu-ab.ts <other worktree> [rounds]');
  const rounds = Number(roundsArg ?? 5);
  process.env.LOG_LEVEL = 'silent';
  Runtime.install({ logger: new DefaultLogger('WARN') });
  await startStack();
  const [mine, theirs, baselines, load] = await Promise.all([
    startApiProcess(apiEnv()),
    startOtherApi(path.resolve(other)),
    startBaselines(stack().config.databaseUrl),
    startLoadGenerator(),
  ]);
  try {
    const measured: Array<{ name: string; pid: number; scenario: HttpScenario }> = [];
    for (const [label, api] of [
      ['this tree', mine],
      [path.basename(other), theirs],
    ] as const) {
      // --other-never-writes: the other API's fixtures are created through this tree's, so that process never
      // writes (MikroORM's flush and transactions run in AsyncLocalStorage, which Node 20 then keeps on for good).
      const setupUrl = NEVER_WRITES && api === theirs ? mine.url : api.url;
      const scenarios = (await hotPathScenarios(setupUrl, baselines.pg)).map((scenario) => ({
        ...scenario,
        options: { ...scenario.options, url: String(scenario.options.url).replace(setupUrl, api.url) },
      }));
      const [, read, replay] = scenarios;
      const unknown: HttpScenario = {
        name: 'GET /api/v1/nothing (404)',
        expectedStatus: 404,
        options: { url: `${api.url}/api/v1/nothing`, headers: read.options.headers },
      };
      if (measured.length === 0)
        measured.push({ name: 'floor: bare Koa + pg', pid: baselines.pid, scenario: read.floor! });
      for (const scenario of [read, replay, unknown]) {
        measured.push({ name: `${scenario.name} — ${label}`, pid: api.pid, scenario });
      }
      await warmUp(load, [read, replay, unknown]);
    }
    const samples = new Map<string, { cpu: number[]; rps: number[] }>();
    for (let round = 1; round <= rounds; round += 1) {
      for (const { name, pid, scenario } of measured) {
        const before = servingCpu([pid]);
        const result = await load.run({ ...scenario.options, duration: SECONDS, connections: 10 });
        const spent = servingCpuSince(before, servingCpu([pid]));
        const bad = Object.keys(result.statusCodeStats).filter((status) => Number(status) !== scenario.expectedStatus);
        if (bad.length > 0) throw new Error(`${name}: unexpected statuses ${bad.join(', ')}`);
        const entry = samples.get(name) ?? { cpu: [], rps: [] };
        entry.cpu.push((spent.serving * 1000) / result.requestsTotal);
        entry.rps.push(result.requestsAverage);
        samples.set(name, entry);
      }
      process.stderr.write(`[ab] round ${round}/${rounds} done\n`);
    }
    console.log(`| scenario | serving CPU/request (µs), median of ${rounds} | req/s, median |`);
    console.log('|---|---:|---:|');
    for (const [name, { cpu, rps }] of samples) {
      console.log(
        `| ${name} | ${Math.round(median(cpu))} (${cpu.map(Math.round).join(', ')}) | ${Math.round(median(rps))} |`,
      );
    }
  } finally {
    theirs.stop();
    await Promise.all([load.stop(), baselines.stop(), mine.stop()]);
    await stopStack();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
