/**
 * The tools `npm start` can run without: Jaeger (traces) and Mailpit (the mail inbox). The API needs neither, so a
 * missing binary never holds it up: a binary already there starts before the API (tracing and the inbox work from
 * the first request), a missing one is built in the background while the API starts (a Go build takes tens of
 * minutes on two cores) and the caller decides what its arrival means. The Temporal CLI is not one of them: the
 * API cannot start without Temporal.
 */
import { log } from './paths';

export interface OptionalTool<T> {
  /** As the log names it: "Jaeger", "Mailpit". */
  name: string;
  /** The binary to run now (named by the environment, or built before); undefined when it has to be built. */
  existing(): string | undefined;
  /** Whether this machine can build it (Go is there). */
  buildable(): boolean;
  /** Builds the binary (minutes); undefined when the build failed (it says why). */
  build(): Promise<string | undefined>;
  start(binary: string): Promise<T>;
}

export type OptionalStart<T> =
  | { state: 'running'; running: T }
  | { state: 'building'; built: Promise<string | undefined> }
  | { state: 'unavailable' }
  /** Not wanted: the environment names a server of its own (SMTP_URL, a collector) or skips it. */
  | { state: 'skipped' };

/** Starts the tool when its binary is there, else starts its build and returns without waiting for it. */
export async function startOptionalTool<T>(tool: OptionalTool<T>): Promise<OptionalStart<T>> {
  const binary = tool.existing();
  if (binary) return { state: 'running', running: await tool.start(binary) };
  if (!tool.buildable()) return { state: 'unavailable' };
  const built = withProgress(`building ${tool.name}`, tool.build());
  return { state: 'building', built };
}

export interface StartPlan<M, J> {
  /** What the API needs (the database, Temporal, the sandbox), started in order. */
  required(): Promise<void>;
  /** Undefined: not wanted on this run. */
  mail?: OptionalTool<M>;
  jaeger?: OptionalTool<J>;
  /** Migrations, the worker and the API, given what became of the optional tools. */
  app(optional: { mail: OptionalStart<M>; jaeger: OptionalStart<J> }): Promise<void>;
}

/**
 * `npm start`'s order: the required pieces, then the optional tools that are there (a missing one's build only
 * begins), then the app. Resolves once the app is up, whatever the builds are doing.
 */
export async function runStartPlan<M, J>(
  plan: StartPlan<M, J>,
): Promise<{ mail: OptionalStart<M>; jaeger: OptionalStart<J> }> {
  await plan.required();
  const skipped = { state: 'skipped' } as const;
  const optional = {
    mail: plan.mail ? await startOptionalTool(plan.mail) : skipped,
    jaeger: plan.jaeger ? await startOptionalTool(plan.jaeger) : skipped,
  };
  await plan.app(optional);
  return optional;
}

/** A long step's progress: a log line every 45 s with the time it has taken so far, and one when it ends. */
export async function withProgress<T>(what: string, work: Promise<T>): Promise<T> {
  const started = Date.now();
  const elapsed = () => {
    const seconds = Math.round((Date.now() - started) / 1000);
    return `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
  };
  const ticker = setInterval(() => log(`still ${what} (${elapsed()} so far)`), 45_000);
  ticker.unref();
  try {
    const result = await work;
    log(`${what}: ended after ${elapsed()}`);
    return result;
  } finally {
    clearInterval(ticker);
  }
}
