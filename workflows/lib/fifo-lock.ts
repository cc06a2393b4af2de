/**
 * A first-in, first-out lock for workflow code. `await condition(() => !busy); busy = true` does not exclude: the
 * SDK checks every blocked condition in one pass and resumes each one whose predicate holds, so releasing such a
 * lock lets every waiter in at once. Here each caller takes a ticket and only the ticket being served may pass, so
 * exactly one waiter runs, in arrival order. Deterministic: tickets follow the order of the workflow's own code.
 */
import { condition } from '@temporalio/workflow';

export interface FifoLock {
  /** Runs `work` once every earlier caller has finished (returned or thrown). */
  run<T>(work: () => Promise<T>): Promise<T>;
  /** True while someone holds the lock or waits for it. */
  readonly busy: boolean;
}

export function fifoLock(): FifoLock {
  let issued = 0;
  let serving = 0;
  return {
    async run<T>(work: () => Promise<T>): Promise<T> {
      const ticket = issued++;
      await condition(() => serving === ticket);
      try {
        return await work();
      } finally {
        serving += 1;
      }
    },
    get busy() {
      return issued !== serving;
    },
  };
}
