/**
 * Sign-in throttles, counted in the shared fixed-window counters (rate_limit_counters). Callers pass an
 * EntityManager outside any request transaction, so a count survives the 401 or 429 that follows it.
 *
 * - per client IP: login and change-password attempts (then 429), counted before the password is checked; a login
 *   that succeeds gives its count back, so the budget is spent by failures, not by the people of one office or
 *   carrier-grade NAT signing in (a wrong password from that address still spends it for everyone there);
 * - per e-mail and identity: failed attempts; past the limit the account is locked for the rest of the window and
 *   answers exactly like a wrong password (no oracle for "this account exists and is locked");
 * - forgot-password: requests per IP (then 429) and messages per e-mail (then silently none);
 * - reset-password: a presented token that is unknown, used or expired counts against the client IP and against
 *   itself (then 429); a usable one only against itself, so a valid link is never refused for what others at its
 *   address guessed.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { countHit, readCount, refundHit } from '../../../db/repositories/rate-limit-counters.repository';
import type { DashboardConfig } from '../../../domain/platform/config';
import { errors } from '../../../domain/platform/errors';
import { hashSecret } from '../../../domain/platform/crypto';
import type { DashboardIdentity } from '../../http/dashboard-auth';
import { addressBucket } from '../../http/client-address';

function windowOf(config: DashboardConfig, now = Date.now()): { start: Date; resetSeconds: number } {
  const windowMs = config.loginWindowSeconds * 1000;
  const start = Math.floor(now / windowMs) * windowMs;
  return { start: new Date(start), resetSeconds: Math.max(1, Math.ceil((start + windowMs - now) / 1000)) };
}

// Bucket names carry a hash, not the address: the counters table is not a list of who tried to sign in.
const emailBucket = (kind: string, identity: DashboardIdentity, email: string) =>
  `${kind}:${identity}:${hashSecret(email).slice(0, 32)}`;

/** Counts one attempt against the address (429 past the limit); `refund` gives it back. */
async function spendIp(
  em: EntityManager,
  config: DashboardConfig,
  kind: string,
  ip: string,
  limit: number,
): Promise<{ refund(): Promise<void> }> {
  const window = windowOf(config);
  const bucket = `${kind}-ip:${addressBucket(ip)}`;
  if ((await countHit(em, bucket, window.start)) > limit) {
    throw errors.rateLimited(window.resetSeconds, 'Too many attempts from this address; try again later');
  }
  return { refund: () => refundHit(em, bucket, window.start) };
}

/** The caller refunds the attempt once the password proved right (only failures spend the address's budget). */
export function spendLoginAttempt(
  em: EntityManager,
  config: DashboardConfig,
  ip: string,
): Promise<{ refund(): Promise<void> }> {
  return spendIp(em, config, 'login', ip, config.loginAttemptsPerIp);
}

export async function isLocked(
  em: EntityManager,
  config: DashboardConfig,
  identity: DashboardIdentity,
  email: string,
): Promise<boolean> {
  const failures = await readCount(em, emailBucket('login-fail', identity, email), windowOf(config).start);
  return failures >= config.loginFailuresPerEmail;
}

export async function recordFailure(
  em: EntityManager,
  config: DashboardConfig,
  identity: DashboardIdentity,
  email: string,
): Promise<void> {
  await countHit(em, emailBucket('login-fail', identity, email), windowOf(config).start);
}

export async function spendForgotAttempt(em: EntityManager, config: DashboardConfig, ip: string): Promise<void> {
  await spendIp(em, config, 'forgot', ip, config.forgotPerIp);
}

/** Whether another reset message may go to this address in the current window (counts it when it may). */
export async function mayMailReset(
  em: EntityManager,
  config: DashboardConfig,
  identity: DashboardIdentity,
  email: string,
): Promise<boolean> {
  return (await countHit(em, emailBucket('forgot', identity, email), windowOf(config).start)) <= config.forgotPerEmail;
}

/**
 * Reset-password, once the token was looked up (one indexed read): a refused token counts against the client IP and
 * against the token it presents (hashed, like the stored token), so guessing tokens and replaying one are both
 * bounded; a usable token counts only against itself (its argon2 hashes stay bounded), never against the address.
 */
export async function spendRefusedReset(
  em: EntityManager,
  config: DashboardConfig,
  ip: string,
  token: string,
): Promise<void> {
  await spendIp(em, config, 'reset', ip, config.resetPerIp);
  await spendResetToken(em, config, token);
}

export async function spendResetToken(em: EntityManager, config: DashboardConfig, token: string): Promise<void> {
  const window = windowOf(config);
  if ((await countHit(em, `reset-token:${hashSecret(token).slice(0, 32)}`, window.start)) > config.resetPerToken) {
    throw errors.rateLimited(window.resetSeconds, 'Too many attempts with this reset link; try again later');
  }
}
