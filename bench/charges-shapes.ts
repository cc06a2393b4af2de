/**
 * Charges in the two deployment shapes, with the CPU each charge costs per process:
 * - in-process: the API in the worker's process, as `npm start` and the rest of the bench run it (charges start
 *   eagerly on the worker's connection);
 * - own process: the API in a process of its own, as docker-compose runs it (`npm run api`): every charge's
 *   workflow start and result go through the Temporal server to the worker.
 * 1-attempt charges at BENCH_CONNECTIONS and with one client; CPU from /proc (bench/process-cpu.ts) around each
 * measurement, divided by the charges it ran (warm-up included).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { once } from 'node:events';
import { REPO_ROOT } from '../scripts/lib/paths';
import { stack } from '../test/helpers/stack';
import { freePort } from '../test/helpers/ports';
import { measureHttp, type BenchContext, type HttpScenario, type Suite } from './harness';
import { cpuPer, cpuSnapshot, type Role } from './process-cpu';
import type { Row } from './report';
import { transactionScenarios } from './transactions';

/** Starts `npm run api`'s entry on the stack's database and Temporal, and waits until it answers. */
async function startApiProcess(): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const child = spawn(path.join(REPO_ROOT, 'node_modules', '.bin', 'tsx'), ['api/server.ts'], {
    cwd: REPO_ROOT,
    env: {
      ...process.env,
      ...stack().env,
      PORT: String(port),
      // As production runs it: request logs at info (to /dev/null here), responses not validated, no 429s.
      LOG_LEVEL: 'info',
      VALIDATE_RESPONSES: 'false',
      RATE_LIMIT_REQUESTS: '1000000000',
    },
    stdio: 'ignore',
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the API process exited (${child.exitCode}) before answering`);
    const live = await fetch(`${url}/health/live`).catch(() => null);
    if (live?.ok) return { url, child };
    if (Date.now() > deadline) throw new Error('the API process did not answer /health/live within 60 s');
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

async function stopApiProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  child.kill('SIGTERM');
  await once(child, 'exit');
}

const ROLES: Role[] = ['api process', 'bench process', 'temporal server', 'postgresql'];

export const chargeShapesSuite: Suite = {
  name: 'charges: deployment shapes and CPU per charge',
  async run(ctx: BenchContext) {
    const rows: Row[] = [];
    const figures: Record<string, number> = {};
    const problems: string[] = [];
    const cpuLines: string[] = [];

    const measure = async (shape: string, apiUrl: string, apiPid?: number) => {
      const [single] = await transactionScenarios(apiUrl);
      const scenarios: Array<HttpScenario & { figure: string }> = [
        {
          ...single,
          name: `${single.name}, ${shape}`,
          figure: `charge_${shape.replace(/\W+/g, '_')}`,
          amount: ctx.connections * ctx.duration,
        },
        {
          ...single,
          name: `${single.name}, ${shape}, one client`,
          connections: 1,
          figure: `charge_${shape.replace(/\W+/g, '_')}_1c`,
          amount: 2 * ctx.duration,
        },
      ];
      for (const scenario of scenarios) {
        const before = cpuSnapshot(apiPid);
        const { row, problems: found } = await measureHttp(ctx, scenario);
        const connections = scenario.connections ?? ctx.connections;
        const cpu = cpuPer(before, cpuSnapshot(apiPid), (scenario.amount ?? 0) + connections);
        rows.push({ ...row, ratio: row.requestsPerSecond / ctx.baseline });
        problems.push(...found);
        Object.assign(figures, {
          [`${scenario.figure}.rps`]: row.requestsPerSecond,
          [`${scenario.figure}.p50`]: row.p50,
          [`${scenario.figure}.p99`]: row.p99,
          [`${scenario.figure}.cpu_ms`]: cpu.all,
        });
        cpuLines.push(
          `| ${scenario.name} | ${ROLES.map((role) => cpu[role].toFixed(1)).join(' | ')} | ${cpu.all.toFixed(1)} |`,
        );
      }
    };

    await measure('API in the worker process', ctx.apiUrl);
    const api = await startApiProcess();
    try {
      await measure('API in its own process', api.url, api.child.pid);
    } finally {
      await stopApiProcess(api.child);
    }

    const header = `| charges | ${ROLES.join(' | ')} | all |`;
    const rule = `|---|${ROLES.map(() => '---:').join('|')}|---:|`;
    return {
      rows,
      figures,
      problems,
      text: [
        'CPU per charge, ms (bench process = worker + sandbox PSP + load generator, and the API when in-process):',
        header,
        ...cpuLines,
      ],
      markdown: [
        '**CPU per charge, ms** (bench process = worker + sandbox PSP + load generator, and the API when in-process)',
        '',
        header,
        rule,
        ...cpuLines,
      ],
    };
  },
};
