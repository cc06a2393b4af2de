/**
 * `npm run bench:soak`: a long run at a steady rate of charges, for memory that creeps and latency that drifts.
 * The stack as `npm run bench` starts it (PostgreSQL, the Temporal dev server, the worker and the sandbox PSP in this
 * process), the API in a process of its own configured for production, and the load generator (autocannon) in
 * another, sending BENCH_SOAK_RATE (default 10) 1-attempt charges per second, whatever their latency, for
 * BENCH_SOAK_MINUTES (default 30). Each minute is one autocannon run of 60 s; after it, every process's RSS is
 * sampled from /proc. Prints one row per minute (charges, p50, p99, RSS of each process) and the drift: last minute
 * against first, and the largest RSS over the first minute's.
 */
import fs from 'node:fs';
import { stack, startStack, stopStack } from '../test/helpers/stack';
import { startChild } from './processes/child';
import { startApiProcess } from './processes/fleet';
import type { LoadResult } from './processes/load-generator';
import { machine } from './report';
import { transactionScenarios } from './transactions';

const log = (message: string) => process.stderr.write(`[soak] ${message}\n`);

function envInt(name: string, fallback: number): number {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be an integer >= 1`);
  return value;
}

const MINUTES = envInt('BENCH_SOAK_MINUTES', 30);
const RATE = envInt('BENCH_SOAK_RATE', 10);

interface Minute {
  minute: number;
  charges: number;
  /** Answered with another status than 201. */
  failed: number;
  /** No answer: a connection error, or none within autocannon's timeout. */
  unanswered: number;
  p50: number;
  p99: number;
  /** RSS in MiB by process. */
  rss: Record<string, number>;
}

const procStatus = (pid: number): string | null => {
  try {
    return fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return null; // exited while we looked
  }
};
const kib = (status: string, field: string) => Number(new RegExp(`^${field}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? 0);
const parentOf = (status: string) => kib(status, 'PPid');

/** This process's descendants, with their status text and command line. */
function descendants(): Array<{ pid: number; status: string; cmdline: string }> {
  const all = fs
    .readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map((name) => ({ pid: Number(name), status: procStatus(Number(name)) }))
    .filter((p): p is { pid: number; status: string } => p.status !== null);
  const ours = new Set([process.pid]);
  for (let grew = true; grew;) {
    grew = false;
    for (const p of all)
      if (!ours.has(p.pid) && ours.has(parentOf(p.status))) {
        ours.add(p.pid);
        grew = true;
      }
  }
  return all
    .filter((p) => ours.has(p.pid) && p.pid !== process.pid)
    .map((p) => {
      let cmdline = '';
      try {
        cmdline = fs.readFileSync(`/proc/${p.pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
      } catch {
        // exited
      }
      return { ...p, cmdline };
    });
}

/**
 * RSS by process, MiB. PostgreSQL is many processes sharing its buffers: its figure is the sum of their private
 * memory (RssAnon) plus the postmaster's RSS, so shared pages are counted once.
 */
function rssByProcess(apiPid: number, loadPid: number): Record<string, number> {
  const mib = (kb: number) => kb / 1024;
  const rssOf = (pid: number) => kib(procStatus(pid) ?? '', 'VmRSS');
  const others = descendants();
  const temporal = others.filter((p) => /\btemporal\b.*\bserver\b/.test(p.cmdline));
  const postgres = others.filter((p) => /^Name:\tpostgres$/m.test(p.status));
  const postmaster = postgres.find((p) => !postgres.some((q) => q.pid === parentOf(p.status)));
  return {
    'bench process (worker, sandbox PSP)': mib(rssOf(process.pid)),
    'API process': mib(rssOf(apiPid)),
    'load generator': mib(rssOf(loadPid)),
    'Temporal dev server': mib(temporal.reduce((sum, p) => sum + kib(p.status, 'VmRSS'), 0)),
    PostgreSQL: mib(
      postgres.reduce((sum, p) => sum + kib(p.status, 'RssAnon'), 0) +
        (postmaster ? kib(postmaster.status, 'RssFile') + kib(postmaster.status, 'RssShmem') : 0),
    ),
  };
}

function report(minutes: Minute[]): string[] {
  const names = Object.keys(minutes[0].rss);
  const md = (cells: Array<string | number>) => `| ${cells.join(' | ')} |`;
  const first = minutes[0];
  const last = minutes.at(-1)!;
  const drift = (a: number, b: number) => (a > 0 ? `${b >= a ? '+' : ''}${(((b - a) / a) * 100).toFixed(1)} %` : '—');
  const maxOf = (name: string) => Math.max(...minutes.map((m) => m.rss[name]));
  return [
    md([
      'minute',
      'charges answered',
      'not 201',
      'unanswered',
      'p50 (ms)',
      'p99 (ms)',
      ...names.map((n) => `${n} RSS (MiB)`),
    ]),
    md(['---:', '---:', '---:', '---:', '---:', '---:', ...names.map(() => '---:')]),
    ...minutes.map((m) =>
      md([m.minute, m.charges, m.failed, m.unanswered, m.p50, m.p99, ...names.map((n) => m.rss[n].toFixed(0))]),
    ),
    '',
    md(['drift', 'last minute against first', 'largest against first minute']),
    md(['---', '---:', '---:']),
    md([
      'charges p99',
      `${first.p99} → ${last.p99} ms (${drift(first.p99, last.p99)})`,
      `${Math.max(...minutes.map((m) => m.p99))} ms`,
    ]),
    ...names.map((n) =>
      md([
        `${n} RSS`,
        `${first.rss[n].toFixed(0)} → ${last.rss[n].toFixed(0)} MiB (${drift(first.rss[n], last.rss[n])})`,
        `${maxOf(n).toFixed(0)} MiB (${drift(first.rss[n], maxOf(n))})`,
      ]),
    ),
  ];
}

async function soak(): Promise<void> {
  process.env.LOG_LEVEL = 'silent';
  await startStack();
  const api = await startApiProcess(stack().env);
  const load = await startChild<unknown>('load-generator');
  const minutes: Minute[] = [];
  try {
    const [charge] = await transactionScenarios(api.url);
    log(`${RATE} charges/s for ${MINUTES} minute(s), one row a minute…`);
    for (let minute = 1; minute <= MINUTES; minute++) {
      const result = await load.ask<LoadResult>({
        ...charge.options,
        duration: 60,
        connections: Math.max(10, RATE * 2),
        overallRate: RATE,
        // A slow charge is a latency to report, not an error: autocannon's 10 s default would drop it.
        timeout: 60,
      });
      const ok = result.statusCodeStats[String(charge.expectedStatus)]?.count ?? 0;
      const row: Minute = {
        minute,
        charges: result.requestsTotal,
        failed: result.requestsTotal - ok,
        unanswered: result.errors + result.timeouts,
        p50: result.p50,
        p99: result.p99,
        rss: rssByProcess(api.pid, load.process.pid as number),
      };
      minutes.push(row);
      log(
        `minute ${minute}: ${row.charges} answered (${row.failed} not 201, ${row.unanswered} unanswered), p99 ${row.p99} ms`,
      );
    }
    process.stdout.write(
      [
        ...machine().map((line) => `- ${line}`),
        `- Soak: ${RATE} charges/s (1 attempt, approved) for ${MINUTES} minute(s); the API and the load generator ` +
          'each in a process of their own, the worker, the sandbox PSP, PostgreSQL and the Temporal dev server in the stack',
        '',
        ...report(minutes),
        '',
      ].join('\n'),
    );
  } finally {
    await load.stop();
    await api.stop();
    await stopStack();
  }
}

if (require.main === module) {
  soak().then(
    () => process.exit(0),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
