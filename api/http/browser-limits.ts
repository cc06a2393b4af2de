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
 * whose new-card verifications and payments are mostly declined. Only attempts that reached a provider count
 * (one refused by a per-session or per-address cap, or before the provider call, counts nowhere), and only with a
 * new card: saved-card, pix and boleto payments neither count nor pause. Once a key has had
 * BREAKER_MIN_VERIFICATIONS in the current decline window and at least BREAKER_DECLINE_SHARE of them were declined,
 * the breaker is on until the window ends: it pauses (429) the sources that declined in the window — the browser
 * session, its checkout session, the client address and the card — and not the merchant's other buyers. The
 * merchant is told once per window through its activity log (`card_verifications.paused`).
 */
export const BREAKER_MIN_VERIFICATIONS = 20;
export const BREAKER_DECLINE_SHARE = 0.5;

const keyBuckets = (keyId: string) => ({
  attempts: `${keyId}|verifications|key`,
  declines: `${keyId}|declines|key`,
  notice: `${keyId}|breaker-notice|key`,
});

/** Where an attempt comes from, as the breaker aims its pause. */
export interface DeclineSource extends BrowserClient {
  sessionId: string;
  /** The checkout session the browser session pays or enrols for, if any. */
  checkoutId?: string | null;
  /** The card's fingerprint, when the card is known before the provider call (enrolment). */
  cardFingerprint?: string | null;
  /** A card the provider is about to see for the first time here: what card testing is made of. */
  newCard: boolean;
}

/** Declines of one checkout and of one card in the window: counted only while a key's breaker can use them. */
const sourceBuckets = (source: DeclineSource) => [
  ...(source.checkoutId ? [`${source.keyId}|declines|checkout|${source.checkoutId}`] : []),
  ...(source.cardFingerprint ? [`${source.keyId}|declines|card|${source.cardFingerprint}`] : []),
];

export interface DeclineReservation {
  /** The provider saw the card and did not decline it: give the reserved declines back; a clean attempt stays. */
  release(): Promise<void>;
  /** The provider never saw the card: give everything back, so the attempt counts nowhere. */
  cancel(): Promise<void>;
}

/**
 * Reserves one decline in every budget before the provider is called, atomically (an upsert that returns the new
 * count): N requests started in parallel get counts 1..N, so no more than the limit can reach a provider, where a
 * read-then-record check let all of them through before the first decline was written. The per-session and
 * per-address caps come first; past one, the slots just taken are given back and the answer is 429. Then, for a
 * new card, the breaker: while it is on, a source that declined before in the window is refused (429); otherwise
 * the attempt is counted for the key. The caller keeps the reservation when the card is declined, releases it when
 * the provider did not decline, and cancels it when the provider was never called.
 */
export async function reserveDecline(
  em: EntityManager,
  source: DeclineSource,
  notifyPaused: (windowEndsAt: Date) => Promise<void>,
  now = Date.now(),
): Promise<DeclineReservation> {
  const windowMs = DECLINE_WINDOW_SECONDS * 1000;
  const windowStart = new Date(Math.floor(now / windowMs) * windowMs);
  const resetSeconds = Math.max(1, Math.ceil((windowStart.getTime() + windowMs - now) / 1000));
  const key = keyBuckets(source.keyId);
  const declines: string[] = [];
  const counted: string[] = [];
  const giveBack = async (buckets: string[]) => {
    for (const bucket of buckets.splice(0)) await refundHit(em, bucket, windowStart);
  };
  const cancel = async () => {
    await giveBack(declines);
    await giveBack(counted);
  };

  let declinedHereBefore = false;
  for (const { bucket, limit, what } of declineBudgets(source)) {
    const count = await countHit(em, bucket, windowStart);
    declines.push(bucket);
    if (count > limit) {
      await cancel();
      throw errors.rateLimited(resetSeconds, `Too many declined cards from this ${what}; try again later`);
    }
    // Another decline (or one in flight) from this browser session or address in the window.
    if (count > 1) declinedHereBefore = true;
  }
  if (!source.newCard) return { release: () => giveBack(declines), cancel };

  if (await breakerOn(em, key, windowStart)) {
    if ((await countHit(em, key.notice, windowStart)) === 1)
      await notifyPaused(new Date(windowStart.getTime() + windowMs));
    for (const bucket of sourceBuckets(source)) {
      if ((await readCount(em, bucket, windowStart)) > 0) declinedHereBefore = true;
    }
    if (declinedHereBefore) {
      await cancel();
      throw errors.rateLimited(
        resetSeconds,
        'Card payments and verifications from this checkout, address or card are paused: too many declined cards; try again later',
      );
    }
  }
  await countHit(em, key.attempts, windowStart);
  counted.push(key.attempts);
  for (const bucket of [key.declines, ...sourceBuckets(source)]) {
    await countHit(em, bucket, windowStart);
    declines.push(bucket);
  }
  return { release: () => giveBack(declines), cancel };
}

async function breakerOn(em: EntityManager, key: ReturnType<typeof keyBuckets>, windowStart: Date): Promise<boolean> {
  const attempts = await readCount(em, key.attempts, windowStart);
  const declines = await readCount(em, key.declines, windowStart);
  return attempts >= BREAKER_MIN_VERIFICATIONS && declines >= attempts * BREAKER_DECLINE_SHARE;
}
