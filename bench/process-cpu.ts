/**
 * CPU time by process role, from /proc (Linux): where a charge's CPU goes across the API, the worker, the Temporal
 * server and PostgreSQL. A snapshot sums utime + stime (all threads) of every live process of each role; the
 * difference of two snapshots is the CPU spent between them (a process that exited meanwhile is missed: PostgreSQL
 * backends of the pooled connections live as long as the run). The sandbox PSP and the load generator run in the
 * bench process: its figure is an upper bound of the worker's.
 */
import fs from 'node:fs';

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

export type Role = 'bench process' | 'api process' | 'temporal server' | 'postgresql';

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
  const totals: Record<Role, number> = {
    'bench process': 0,
    'api process': 0,
    'temporal server': 0,
    postgresql: 0,
  };
  for (const info of processes) {
    if (info.pid === process.pid) totals['bench process'] += info.cpuMs;
    else if (api.has(info.pid)) totals['api process'] += info.cpuMs;
    else if (/\btemporal\b.*\bserver\b/.test(info.cmdline)) totals['temporal server'] += info.cpuMs;
    else if (info.comm === 'postgres' || info.cmdline.startsWith('postgres')) totals.postgresql += info.cpuMs;
  }
  return totals;
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
