/**
 * The test harness's child processes (Temporal dev server, Mailpit, PostgreSQL, the time-skipping test server, the
 * chaos part's worker processes) must not outlive it. The Temporal dev server runs in a session of its own and
 * PostgreSQL is detached, so a process-group kill would miss them; the harness therefore works from its
 * descendants as /proc lists them:
 * - on exit, SIGINT, SIGTERM and SIGHUP it sends every descendant SIGTERM (then exits on a signal);
 * - a harness killed outright (SIGKILL, OOM killer, a closed CI step) runs no handler, so it keeps a pid file of its
 *   descendants (`<tmpdir>/switchyard-harness/<pid>.json`, refreshed after every test) and the next harness start
 *   stops the processes of every file whose owner is gone.
 * A process is identified by pid and start time, so a pid reused since is never signalled. Linux-only (/proc).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { commandLine, readProc, stopProcess } from '../../scripts/lib/processes';

export const PID_DIR = path.join(os.tmpdir(), 'switchyard-harness');

interface ProcessId {
  pid: number;
  /** Clock ticks since boot at which the process started (/proc/<pid>/stat field 22). */
  start: number;
}

interface PidFile {
  owner: ProcessId;
  children: (ProcessId & { command: string })[];
}

/** Fields of /proc/<pid>/stat after the command name (which may contain spaces and parentheses). */
function statFields(pid: number): string[] | undefined {
  const stat = readProc(pid, 'stat');
  return stat?.slice(stat.lastIndexOf(')') + 2).split(' ');
}

function identify(pid: number): ProcessId | undefined {
  const fields = statFields(pid);
  // fields[0] is field 3 (state): a zombie has already exited.
  if (!fields || fields[0] === 'Z') return undefined;
  return { pid, start: Number(fields[19]) };
}

function isRunning(id: ProcessId): boolean {
  return identify(id.pid)?.start === id.start;
}

/** Every live process below `root`, parents before their children. */
export function descendantsOf(root: number): ProcessId[] {
  if (process.platform !== 'linux') return [];
  const childrenOf = new Map<number, number[]>();
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const parent = Number(statFields(Number(name))?.[1]);
    if (Number.isInteger(parent)) childrenOf.set(parent, [...(childrenOf.get(parent) ?? []), Number(name)]);
  }
  const found: ProcessId[] = [];
  for (let queue = [...(childrenOf.get(root) ?? [])]; queue.length > 0;) {
    const pid = queue.shift()!;
    const id = identify(pid);
    if (id) found.push(id);
    queue.push(...(childrenOf.get(pid) ?? []));
  }
  return found;
}

const ownFile = () => path.join(PID_DIR, `${process.pid}.json`);

/** Writes this harness's current descendants to its pid file (cheap: one pass over /proc). */
export function recordChildren(): void {
  const owner = identify(process.pid);
  if (!owner) return;
  const file: PidFile = {
    owner,
    children: descendantsOf(process.pid).map((id) => ({ ...id, command: commandLine(id.pid).join(' ').slice(0, 200) })),
  };
  fs.mkdirSync(PID_DIR, { recursive: true });
  const staging = `${ownFile()}.tmp`;
  fs.writeFileSync(staging, JSON.stringify(file));
  fs.renameSync(staging, ownFile());
}

/** Stops what harness runs that died without cleaning up left behind; returns the pids it signalled. */
export async function reapStaleChildren(log: (line: string) => void = () => {}): Promise<number[]> {
  if (process.platform !== 'linux' || !fs.existsSync(PID_DIR)) return [];
  const reaped: number[] = [];
  for (const name of fs.readdirSync(PID_DIR).filter((n) => n.endsWith('.json'))) {
    const file = path.join(PID_DIR, name);
    let recorded: PidFile;
    try {
      recorded = JSON.parse(fs.readFileSync(file, 'utf8')) as PidFile;
    } catch {
      continue; // being written by its (live) owner
    }
    if (isRunning(recorded.owner)) continue;
    const left = recorded.children.filter(isRunning);
    for (const child of left)
      log(`stopping ${child.command} (pid ${child.pid}) left by test run ${recorded.owner.pid}`);
    await Promise.all(left.map((child) => stopProcess(child.pid, 'SIGTERM', 10_000)));
    reaped.push(...left.map((child) => child.pid));
    fs.rmSync(file, { force: true });
  }
  return reaped;
}

function signalDescendants(): void {
  for (const { pid } of descendantsOf(process.pid)) {
    try {
      process.kill(pid, 'SIGTERM');
    } catch {
      // gone meanwhile
    }
  }
}

const SIGNALS = { SIGINT: 2, SIGTERM: 15, SIGHUP: 1 } as const;
let guarded = false;

/**
 * Children die with the harness: on exit (after the stack's own stop, this finds nothing) and on a signal, which
 * otherwise ends mocha without any exit handler running. Also starts the pid file; forgetChildren() removes it.
 */
export function guardChildren(): void {
  recordChildren();
  if (guarded) return;
  guarded = true;
  process.on('exit', () => {
    signalDescendants();
    fs.rmSync(ownFile(), { force: true });
  });
  for (const [signal, number] of Object.entries(SIGNALS)) {
    process.once(signal, () => {
      signalDescendants();
      fs.rmSync(ownFile(), { force: true });
      process.exit(128 + number);
    });
  }
}

/** After a clean stop: nothing of ours is left to reap. */
export function forgetChildren(): void {
  fs.rmSync(ownFile(), { force: true });
}
