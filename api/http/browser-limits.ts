/**
 * Limits of the public-key (browser) endpoints, on top of the key's own budget. A public key ships in every
 * buyer's page, so its budget is the merchant's whole checkout: each client IP and each browser session gets a
 * smaller share of it, checked first, so a request refused here does not spend the key's budget. Counted in the
 * same shared PostgreSQL table as the key budget (rate-limit.ts), so every API process sees the same counts.
 */
import {
  countHit,
  LONGEST_WINDOW_SECONDS,
  readCount,
  refundHit,
} from '../../db/repositories/rate-limit-counters.repository';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Config } from '../../domain/platform/config';
import { errors } from '../../domain/platform/errors';
import { consumeRateLimit, rateLimitHeaders, type RateLimitState } from './rate-limit';
import { addressBucket } from './client-address';

/** Only well-formed session ids get a bucket; anything else fails validation later and counts per IP only. */
const SESSION_ID = /^bs_[0-9A-Za-z]{1,60}$/;

export interface BrowserClient {
  keyId: string;
  ip: string;
  /** The browser session the request names (path parameter or X-Session-Id), if any. */
  sessionId: string | undefined;
}

/**
 * Consumes the per-IP and per-session budgets; 429 RATE_LIMIT_EXCEEDED (with the RateLimit headers of the budget
 * that ran out) when one is exhausted. Returns the states for the response headers.
 */
export async function consumeBrowserLimits(
  em: EntityManager,
  client: BrowserClient,
  config: Pick<Config, 'rateLimit'>,
  setHeaders: (headers: Record<string, string>) => void,
): Promise<RateLimitState[]> {
  const { windowSeconds, publicPerIp, publicPerSession } = config.rateLimit;
  const budgets = [
    { bucket: `${client.keyId}|ip|${addressBucket(client.ip)}`, limit: publicPerIp, what: 'this IP address' },
  ];
  if (client.sessionId && SESSION_ID.test(client.sessionId))
    budgets.push({
      bucket: `${client.keyId}|session|${client.sessionId}`,
      limit: publicPerSession,
      what: 'this browser session',
    });
  const states: RateLimitState[] = [];
  for (const { bucket, limit, what } of budgets) {
    const state = await consumeRateLimit(em, bucket, limit, windowSeconds);
    if (state.exceeded) {
      setHeaders(rateLimitHeaders(state, windowSeconds));
      throw errors.rateLimited(state.resetSeconds, `Too many requests from ${what}`);
    }
    states.push(state);
  }
  return states;
}

/** The budget closest to running out: what the RateLimit headers of a successful response report. */
export function tightest(states: RateLimitState[]): RateLimitState {
  return states.reduce((a, b) => (b.remaining < a.remaining ? b : a));
}

/**
 * Card-testing defence: declined card verifications per browser session, and per client IP within the key, in a
 * fixed window. Past the limit, enrolment answers 429 without calling a provider, so a stolen-card list cannot be
 * checked through the merchant's checkout. (Counted in rate_limit_counters; housekeeping keeps this window.)
 */
export const DECLINE_WINDOW_SECONDS = LONGEST_WINDOW_SECONDS;
export const MAX_DECLINES_PER_SESSION = 3;
export const MAX_DECLINES_PER_IP = 10;
/**
 * Unsuccessful payments of one checkout session (any browser session, any IP) within a rolling window, after
 * which POST /sessions/:id/checkout/confirm answers 429 until the oldest of them leaves the window; the checkout
 * itself stays payable. Counted from the checkout's own transactions, so reopening the page does not reset it.
 */
export const MAX_FAILED_PAYMENTS_PER_CHECKOUT = 5;
export const CHECKOUT_FAILURE_WINDOW_SECONDS = 30 * 60;

const declineBudgets = (client: BrowserClient & { sessionId: string }) => [
  {
    bucket: `${client.keyId}|declines|session|${client.sessionId}`,
    limit: MAX_DECLINES_PER_SESSION,
    what: 'browser session',
  },
  { bucket: `${client.keyId}|declines|ip|${addressBucket(client.ip)}`, limit: MAX_DECLINES_PER_IP, what: 'IP address' },
];

/**
 * 429 RATE_LIMIT_EXCEEDED when this session or IP has had too many declined cards in the current window: a cheap
 * early refusal, before any other work; reserveDecline is the gate that holds under concurrency.
 */
export async function refuseAfterRepeatedDeclines(
  em: EntityManager,
  client: BrowserClient & { sessionId: string },
  now = Date.now(),
): Promise<void> {
  const windowMs = DECLINE_WINDOW_SECONDS * 1000;
  const windowStart = Math.floor(now / windowMs) * windowMs;
  for (const { bucket, limit, what } of declineBudgets(client)) {
    if ((await readCount(em, bucket, new Date(windowStart))) >= limit) {
      const resetSeconds = Math.max(1, Math.ceil((windowStart + windowMs - now) / 1000));
      throw errors.rateLimited(resetSeconds, `Too many declined cards from this ${what}; try again later`);
    }
  }
}

/**
 * Per-key decline-ratio breaker: card testing spread over many sessions and addresses still shows as a public key
 * whose browser verifications are mostly declined. Once a key has had BREAKER_MIN_VERIFICATIONS in the current
 * decline window and at least BREAKER_DECLINE_SHARE of them were declined, browser card verifications and payments
 * with it are paused (429) until the window ends, and the merchant is told once per window through its activity log
 * (`card_verifications.paused`, GET /merchants/:id/activity and the Dashboard).
 */
export const BREAKER_MIN_VERIFICATIONS = 20;
export const BREAKER_DECLINE_SHARE = 0.5;

const keyBuckets = (keyId: string) => ({
  attempts: `${keyId}|verifications|key`,
  declines: `${keyId}|declines|key`,
  notice: `${keyId}|breaker-notice|key`,
});

export interface DeclineReservation {
  /** The verification or payment was not declined: give the reserved slot back. */
  release(): Promise<void>;
}

/**
 * Reserves one decline in every budget before the provider is called, atomically (an upsert that returns the new
 * count): N requests started in parallel get counts 1..N, so no more than the limit can reach a provider, where a
 * read-then-record check let all of them through before the first decline was written. Past a limit the slots just
 * taken are given back and the answer is 429. The caller keeps the reservation when the card is declined and
 * releases it otherwise.
 */
export async function reserveDecline(
  em: EntityManager,
  client: BrowserClient & { sessionId: string },
  notifyPaused: () => Promise<void>,
  now = Date.now(),
): Promise<DeclineReservation> {
  const windowMs = DECLINE_WINDOW_SECONDS * 1000;
  const windowStart = new Date(Math.floor(now / windowMs) * windowMs);
  const resetSeconds = Math.max(1, Math.ceil((windowStart.getTime() + windowMs - now) / 1000));
  const key = keyBuckets(client.keyId);
  const [attempts, declines] = [
    await readCount(em, key.attempts, windowStart),
    await readCount(em, key.declines, windowStart),
  ];
  if (attempts >= BREAKER_MIN_VERIFICATIONS && declines >= attempts * BREAKER_DECLINE_SHARE) {
    if ((await countHit(em, key.notice, windowStart)) === 1) await notifyPaused();
    throw errors.rateLimited(
      resetSeconds,
      'Card verifications from browsers are paused for this merchant: too many declined cards; try again later',
    );
  }
  const taken: string[] = [];
  const release = async () => {
    for (const bucket of taken.splice(0)) await refundHit(em, bucket, windowStart);
  };
  await countHit(em, key.attempts, windowStart);
  await countHit(em, key.declines, windowStart);
  taken.push(key.declines);
  for (const { bucket, limit, what } of declineBudgets(client)) {
    const count = await countHit(em, bucket, windowStart);
    taken.push(bucket);
    if (count > limit) {
      await release();
      throw errors.rateLimited(resetSeconds, `Too many declined cards from this ${what}; try again later`);
    }
  }
  return { release };
}
