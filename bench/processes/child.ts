/**
 * The bench's own processes: the load generator, the API and the baselines each run in a Node process of their own
 * (tsx), so no two of them share an event loop and a profile of one counts only its own work. A child reports what
 * it started with one IPC message and stops when the parent disconnects or asks it to.
 */
import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { Session } from 'node:inspector/promises';

export interface Child<Ready> {
  process: ChildProcess;
  /** The child's first message: its URLs, once it listens. */
  ready: Ready;
  /** Sends a message and waits for the child's answer (one request at a time). */
  ask<Answer>(message: unknown): Promise<Answer>;
  stop(): Promise<void>;
}

/**
 * Forks bench/processes/<script>.ts. `quiet` sends the child's stdout to nowhere: the API logs every request there at
 * info, as in production, and the bench must not print it.
 */
export async function startChild<Ready>(
  script: string,
  options: { env?: NodeJS.ProcessEnv; quiet?: boolean } = {},
): Promise<Child<Ready>> {
  const child = fork(path.join(__dirname, `${script}.ts`), [], {
    env: options.env ?? process.env,
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', options.quiet ? 'ignore' : 'inherit', 'inherit', 'ipc'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const ready = await nextMessage<Ready>(child, `${script} did not start`);
  let queue: Promise<unknown> = Promise.resolve();
  return {
    process: child,
    ready,
    ask<Answer>(message: unknown) {
      const answer = queue.then(() => {
        child.send(message as object);
        return nextMessage<Answer>(child, `${script} exited before answering`);
      });
      queue = answer.catch(() => undefined);
      return answer;
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

function nextMessage<T>(child: ChildProcess, failure: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`${failure} (exit ${code})`));
    child.once('exit', onExit);
    child.once('message', (message: { error?: string } & T) => {
      child.off('exit', onExit);
      if (message && typeof message === 'object' && 'error' in message && message.error)
        reject(new Error(message.error));
      else resolve(message);
    });
  });
}

/** In a child: the answer to send back for each message, and a clean stop on SIGTERM or when the parent goes. */
export function serveParent(handle: (message: unknown) => Promise<unknown>, stop: () => Promise<void>): void {
  process.on('message', (message) => {
    handle(message).then(
      (answer) => process.send?.(answer as object),
      (error: unknown) => process.send?.({ error: error instanceof Error ? error.message : String(error) }),
    );
  });
  const exit = () => void stop().finally(() => process.exit(0));
  process.once('SIGTERM', exit).once('disconnect', exit);
}

const session = new Session();

/** In a child: V8's CPU profiler on its main thread, started and stopped by the parent's messages. */
export async function cpuProfiler(message: unknown): Promise<unknown> {
  if (message === 'profile-start') {
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.start');
    return { started: true };
  }
  if (message === 'profile-stop') {
    const { profile } = await session.post('Profiler.stop');
    session.disconnect();
    return { profile };
  }
  throw new Error(`unknown message ${JSON.stringify(message)}`);
}
