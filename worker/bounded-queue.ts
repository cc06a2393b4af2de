/**
 * Runs at most `concurrency` tasks at a time, in arrival order, with at most `maxWaiting` queued behind them.
 * The outbox listener's notifications arrive as fast as PostgreSQL commits; while Temporal or the database is
 * slow, an unbounded queue would grow with every event until the worker runs out of memory. A task refused here
 * is not lost work: its event stays in the outbox, where the sweep finds it.
 */
export interface BoundedQueue {
  /** Queues the task; false (and the task is not run) when `maxWaiting` tasks are already waiting. */
  push(task: () => Promise<void>): boolean;
  /** Tasks queued and not yet started. */
  readonly waiting: number;
  /** Drops what is queued and resolves once nothing is running. */
  drain(): Promise<void>;
}

export function boundedQueue(concurrency: number, maxWaiting: number): BoundedQueue {
  const waiting: (() => Promise<void>)[] = [];
  let running = 0;
  const pump = () => {
    while (running < concurrency && waiting.length > 0) {
      const task = waiting.shift() as () => Promise<void>;
      running += 1;
      void task().finally(() => {
        running -= 1;
        pump();
      });
    }
  };
  return {
    push(task) {
      if (running >= concurrency && waiting.length >= maxWaiting) return false;
      waiting.push(task);
      pump();
      return true;
    },
    get waiting() {
      return waiting.length;
    },
    async drain() {
      waiting.length = 0;
      while (running > 0) await new Promise((resolve) => setTimeout(resolve, 10));
    },
  };
}
