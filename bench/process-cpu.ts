/**
 * CPU time by process role, from /proc (Linux): where a charge's CPU goes across the API, the worker, the Temporal
 * server and PostgreSQL. A snapshot sums utime + stime (all threads) of every live process of each role; the
 * difference of two snapshots is the CPU spent between them (a process that exited meanwhile is missed: PostgreSQL
 * backends of the pooled connections live as long as the run). The sandbox PSP runs in the bench process: its
 * figure is an upper bound of the worker's. The load generator's and the baselines' processes belong to no role.
 */
import fs from 'node:fs';

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

export type Role = 'bench process' | 'api process' | 'temporal server' | 'postgresql' | 'temporal postgresql';

interface ProcessInfo {
  pid: number;
  ppid: number;
  comm: string;
  cmdline: string;
  cpuMs: number;
}

function readProcess(pid: number): ProcessInfo | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    // Fields after "(comm)": state is field 3, ppid 4, utime 14, stime 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
    return {
      pid,
      ppid: Number(fields[1]),
      comm,
      cmdline,
      cpuMs: ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND,
    };
  } catch {
    return null; // exited while we looked
  }
}

function allProcesses(): ProcessInfo[] {
  return fs
    .readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map((name) => readProcess(Number(name)))
    .filter((info): info is ProcessInfo => info !== null);
}

/** The process and every descendant. */
function treeOf(root: number, processes: ProcessInfo[]): Set<number> {
  const tree = new Set([root]);
  for (let grew = true; grew;) {
    grew = false;
    for (const info of processes) {
      if (!tree.has(info.pid) && tree.has(info.ppid)) {
        tree.add(info.pid);
        grew = true;
      }
    }
  }
  return tree;
}

/**
 * CPU milliseconds so far per role, among this process and its descendants (the stack's servers are its children;
 * other runs on the machine are not counted); `apiPid`: the API's own process tree when it runs apart.
 */
export function cpuSnapshot(apiPid?: number): Record<Role, number> {
  const everything = allProcesses();
  const ours = treeOf(process.pid, everything);
  const processes = everything.filter((info) => ours.has(info.pid));
  const api = apiPid ? treeOf(apiPid, processes) : new Set<number>();
  // The full Temporal server's own PostgreSQL (scripts/lib/temporal-postgres-server.ts): its postmaster's data dir.
  const temporalPostgres = new Set<number>();
  for (const info of processes) {
    if (info.comm === 'postgres' && info.cmdline.includes('switchyard-temporal-pg-')) {
      for (const pid of treeOf(info.pid, processes)) temporalPostgres.add(pid);
    }
  }
  const totals: Record<Role, number> = {
    'bench process': 0,
    'api process': 0,
    'temporal server': 0,
    postgresql: 0,
    'temporal postgresql': 0,
  };
  for (const info of processes) {
    if (info.pid === process.pid) totals['bench process'] += info.cpuMs;
    else if (api.has(info.pid)) totals['api process'] += info.cpuMs;
    else if (temporalPostgres.has(info.pid)) totals['temporal postgresql'] += info.cpuMs;
    else if (/\btemporal\b.*\bserver\b/.test(info.cmdline)) totals['temporal server'] += info.cpuMs;
    else if (info.comm === 'postgres' || info.cmdline.startsWith('postgres')) totals.postgresql += info.cpuMs;
  }
  return totals;
}

/**
 * CPU milliseconds so far of each process serving the bench's requests: the given processes' trees (the API's,
 * the baselines') as `serving`, and the PostgreSQL server of this run (every backend: the worker's too) as
 * `postgresql`. Per request, it hardly depends on how loaded the machine is, unlike requests/s.
 */
export function servingCpu(pids: number[]): Map<number, { role: 'serving' | 'postgresql'; cpuMs: number }> {
  const everything = allProcesses();
  const ours = treeOf(process.pid, everything);
  const serving = new Set(pids.flatMap((pid) => [...treeOf(pid, everything)]));
  const snapshot = new Map<number, { role: 'serving' | 'postgresql'; cpuMs: number }>();
  for (const info of everything) {
    if (!ours.has(info.pid) || info.cmdline.includes('switchyard-temporal-pg-')) continue;
    if (serving.has(info.pid)) snapshot.set(info.pid, { role: 'serving', cpuMs: info.cpuMs });
    else if (info.comm === 'postgres' || info.cmdline.startsWith('postgres'))
      snapshot.set(info.pid, { role: 'postgresql', cpuMs: info.cpuMs });
  }
  return snapshot;
}

/** CPU ms between two servingCpu snapshots by role (a process that exited meanwhile is missed, never negative). */
export function servingCpuSince(
  before: ReturnType<typeof servingCpu>,
  after: ReturnType<typeof servingCpu>,
): { serving: number; postgresql: number } {
  const spent = { serving: 0, postgresql: 0 };
  for (const [pid, { role, cpuMs }] of after) spent[role] += cpuMs - (before.get(pid)?.cpuMs ?? 0);
  return spent;
}

/** CPU per unit of work between two snapshots, by role and in all. */
export function cpuPer(
  before: Record<Role, number>,
  after: Record<Role, number>,
  units: number,
): Record<Role | 'all', number> {
  const per = {} as Record<Role | 'all', number>;
  let all = 0;
  for (const role of Object.keys(before) as Role[]) {
    per[role] = (after[role] - before[role]) / units;
    all += per[role];
  }
  per.all = all;
  return per;
}

/**
 * CPU milliseconds so far per thread of this process (the bench process: the API when in-process, the worker's
 * main thread — every activity, the ORM, the sandbox PSP —, its workflow thread, the SDK's Rust core, V8's helpers).
 * A single thread near 100 % of a core is a serialization no number of cores removes.
 */
export function threadSnapshot(pid = process.pid): Map<number, { name: string; cpuMs: number }> {
  const threads = new Map<number, { name: string; cpuMs: number }>();
  for (const tid of fs.readdirSync(`/proc/${pid}/task`).map(Number)) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      threads.set(tid, { name, cpuMs: ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND });
    } catch {
      // the thread ended while we looked
    }
  }
  return threads;
}

/**
 * The whole machine's CPU so far (/proc/stat: every process, other runs on the machine included), in ms of busy
 * and of all CPU time summed over cores: their ratio over a window is how loaded the machine was.
 */
export function machineSnapshot(): { busyMs: number; totalMs: number } {
  const [, ...jiffies] = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/);
  // user nice system idle iowait irq softirq steal (guest time is already counted in user).
  const values = jiffies.slice(0, 8).map(Number);
  const totalMs = (values.reduce((a, b) => a + b, 0) * 1000) / TICKS_PER_SECOND;
  const idleMs = ((values[3] + values[4]) * 1000) / TICKS_PER_SECOND;
  return { busyMs: totalMs - idleMs, totalMs };
}
