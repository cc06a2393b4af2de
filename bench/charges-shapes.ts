/**
 * Charges in the two deployment shapes, with the CPU each charge costs per process:
 * - in-process: the API in the worker's process, as `npm start` and the rest of the bench run it (charges start
 *   eagerly on the worker's connection);
 * - own process: the API in a process of its own, as docker-compose runs it (the run's API,
 *   bench/processes/api.ts): every charge's workflow start and result go through the Temporal server to the worker.
 * 1-attempt charges at BENCH_CONNECTIONS and with one client; CPU from /proc (bench/process-cpu.ts) around each
 * measurement, divided by the charges it ran (warm-up included).
 */
import { startApi } from '../api/server';
import { createLogger, logDestination } from '../domain/platform/logger';
import { stack } from '../test/helpers/stack';
import { measureHttp, type BenchContext, type HttpScenario, type Suite } from './harness';
import { cpuPer, cpuSnapshot, type Role } from './process-cpu';
import type { Row } from './report';
import { transactionScenarios } from './transactions';

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

    await measure('API in its own process', ctx.apiUrl, ctx.apiPid);
    // As `npm start`: the API in the worker's process, charges started eagerly on the worker's connection.
    const config = stack().config;
    const inProcess = await startApi(
      { ...config, validateResponses: false, rateLimit: { ...config.rateLimit, limit: 1e9 } },
      0,
      { logger: createLogger('info', logDestination('/dev/null')), workerConnection: stack().worker.connection },
    );
    try {
      await measure('API in the worker process', inProcess.url);
    } finally {
      await inProcess.stop();
    }

    const header = `| charges | ${ROLES.join(' | ')} | all |`;
    const rule = `|---|${ROLES.map(() => '---:').join('|')}|---:|`;
    return {
      rows,
      figures,
      problems,
      text: [
        'CPU per charge, ms (bench process = worker + sandbox PSP, and the API when in-process; the load generator is not counted):',
        header,
        ...cpuLines,
      ],
      markdown: [
        '**CPU per charge, ms** (bench process = worker + sandbox PSP, and the API when in-process; the load generator is not counted)',
        '',
        header,
        rule,
        ...cpuLines,
      ],
    };
  },
};
