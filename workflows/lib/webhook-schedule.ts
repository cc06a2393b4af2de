/**
 * The webhook retry schedule (pure and deterministic: the workflow passes its seeded Math.random).
 *
 * Svix-like, across about 26 hours: attempt 1 immediately, then after 5 s, 5 min, 30 min, 2 h, 5 h and 10 h
 * (each ±10 % jitter, so endpoints that fail together do not get retried in lock-step), then one last attempt
 * at the end of the window, 26 h after the first (±1 %). Eight attempts in all; after the last the delivery is
 * abandoned (failed). A Retry-After from the receiver stretches the next wait (capped at 6 h) but never past
 * the end of the window.
 */
const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** Waits after attempts 1…6 before jitter. */
export const RETRY_DELAYS_MS = [5 * SECOND, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 10 * HOUR] as const;
export const RETRY_WINDOW_MS = 26 * HOUR;
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 2;
export const DELAY_JITTER = 0.1;
export const WINDOW_JITTER = 0.01;
export const RETRY_AFTER_CAP_MS = 6 * HOUR;

export interface RetryPlan {
  /** Jittered waits after attempts 1…6. */
  delaysMs: number[];
  /** Jittered window: the last attempt happens this long after the first. */
  windowMs: number;
}

const jittered = (base: number, spread: number, random: () => number) =>
  Math.round(base * (1 + spread * (2 * random() - 1)));

export function planRetries(random: () => number): RetryPlan {
  return {
    delaysMs: RETRY_DELAYS_MS.map((delay) => jittered(delay, DELAY_JITTER, random)),
    windowMs: jittered(RETRY_WINDOW_MS, WINDOW_JITTER, random),
  };
}

/** What the attempt being made needs to know to say when the next one would be. */
export interface NextAttempt {
  /** The planned wait after this attempt (for the 7th: the rest of the window). */
  plannedDelayMs: number;
  /** Time left in the window when this attempt starts. */
  remainingMs: number;
}

/**
 * The schedule slot after attempt `attempt` (1-based), or null when that attempt is the last: the eighth, or
 * one made at (or after) the end of the window.
 */
export function nextAttempt(plan: RetryPlan, attempt: number, elapsedMs: number): NextAttempt | null {
  const remainingMs = plan.windowMs - elapsedMs;
  if (attempt >= MAX_ATTEMPTS || remainingMs <= 0) return null;
  const plannedDelayMs = attempt <= plan.delaysMs.length ? plan.delaysMs[attempt - 1] : remainingMs;
  return { plannedDelayMs, remainingMs };
}

/** The wait before the next attempt: the planned one, stretched by Retry-After (capped), within the window. */
export function waitBeforeNext(next: NextAttempt, retryAfterMs: number | null): number {
  const requested = Math.min(retryAfterMs ?? 0, RETRY_AFTER_CAP_MS);
  return Math.max(0, Math.min(Math.max(next.plannedDelayMs, requested), next.remainingMs));
}
