/**
 * Helpers for the local servers the dev stack runs. Mostly for finding ones left behind by a run that was killed
 * hard (SIGKILL, a crashed terminal): they keep their port and data files, so the next start must stop them, but
 * never one that a live process still owns. Linux-only (/proc); elsewhere these find nothing and the servers' own
 * port errors have to do.
 */
import fs from 'node:fs';
import net, { type AddressInfo } from 'node:net';

export function readProc(pid: number, file: 'cmdline' | 'stat' | 'comm'): string | undefined {
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  try {
    return fs.readFileSync(`/proc/${pid}/${file}`, 'utf8');
  } catch {
    return undefined;
  }
}

export function commandLine(pid: number): string[] {
  return readProc(pid, 'cmdline')?.split('\0').filter(Boolean) ?? [];
}

export function processesMatching(test: (args: string[]) => boolean): number[] {
  if (process.platform !== 'linux') return [];
  return fs
    .readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .filter((pid) => pid !== process.pid && test(commandLine(pid)));
}

/**
 * A server whose starter died has been handed to init. Anything else (a live node run, a developer's shell) still
 * owns it, and is told about rather than having its server stopped.
 */
export function isOrphan(pid: number): boolean {
  return parentOf(pid) === 1;
}

export function parentOf(pid: number): number | undefined {
  const parent = Number(readProc(pid, 'stat')?.split(') ')[1]?.split(' ')[1]);
  return Number.isInteger(parent) ? parent : undefined;
}

/** Sends `signal`, then SIGKILL after `graceMs`, and resolves once the process is gone. */
export async function stopProcess(pid: number, signal: NodeJS.Signals, graceMs = 30_000): Promise<void> {
  const gone = () => ['Z', undefined].includes(readProc(pid, 'stat')?.split(') ')[1]?.[0]); // zombie or reaped
  try {
    process.kill(pid, signal);
  } catch {
    return; // already gone
  }
  for (const deadline = Date.now() + graceMs; !gone();) {
    if (Date.now() > deadline) {
      process.kill(pid, 'SIGKILL');
      // SIGKILL is not refused, but the kernel takes a moment to end the process and release its ports.
      for (const killed = Date.now() + 5_000; !gone() && Date.now() < killed;) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export function portInUse(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

export async function waitForPort(port: number, timeoutMs: number): Promise<void> {
  for (const deadline = Date.now() + timeoutMs; !(await portInUse(port));) {
    if (Date.now() > deadline) throw new Error(`nothing listened on port ${port} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Waits (bounded) until nothing listens on `port` any more, e.g. after the server holding it was stopped. */
export async function waitForPortFree(port: number, timeoutMs: number): Promise<void> {
  for (const deadline = Date.now() + timeoutMs; await portInUse(port);) {
    if (Date.now() > deadline) throw new Error(`port ${port} is still in use after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer().once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
