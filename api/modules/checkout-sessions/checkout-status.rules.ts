/**
 * The clock half of the checkout state machine. A session waiting for its buyer whose expires_at has passed
 * IS expired, whether or not the expiry workflow has written that down yet; every read and every status
 * filter applies the same rule, the filter in SQL so pages and totals stay right.
 */
import type { FilterQuery } from '@mikro-orm/core';
import type { CheckoutSession, CheckoutStatus } from '../../../db/entities';
import { errors } from '../../../domain/platform/errors';

/** States the clock can end (and in which the checkout may still be edited). */
export const OPEN_STATUSES: readonly CheckoutStatus[] = ['initiated', 'customer_identified'];

const isOpen = (status: CheckoutStatus) => OPEN_STATUSES.includes(status);

export function effectiveStatus(session: CheckoutSession, now: Date): CheckoutStatus {
  if (isOpen(session.status) && session.expiresAt && session.expiresAt.getTime() <= now.getTime()) return 'expired';
  return session.status;
}

/** WHERE clause matching sessions whose effective status is any of `statuses` at `now`. */
export function effectiveStatusWhere(statuses: readonly CheckoutStatus[], now: Date): FilterQuery<CheckoutSession> {
  const pastExpiry = { expiresAt: { $ne: null, $lte: now } };
  const beforeExpiry = { $or: [{ expiresAt: null }, { expiresAt: { $gt: now } }] };
  const clauses = statuses.map((status): FilterQuery<CheckoutSession> => {
    if (status === 'expired')
      return { $or: [{ status: 'expired' }, { status: { $in: [...OPEN_STATUSES] }, ...pastExpiry }] };
    if (isOpen(status)) return { status, ...beforeExpiry };
    return { status };
  });
  return { $or: clauses };
}

export function invalidTransition(status: CheckoutStatus, action: string) {
  return errors.businessRule('INVALID_STATE_TRANSITION', `A checkout session that is ${status} cannot ${action}`, {
    status,
  });
}

/** Customer, currency, expiry and items change only while the session still waits for its buyer. */
export function assertOpen(session: CheckoutSession, now: Date, action: string): void {
  const status = effectiveStatus(session, now);
  if (!isOpen(status)) throw invalidTransition(status, action);
}

/**
 * A setup-mode session saves a card and sells nothing, so no payment may claim it (POST /transactions and the
 * hosted confirm alike): 422 before anything is created.
 */
export function refuseSetupMode(session: CheckoutSession): void {
  if (session.mode === 'setup')
    throw errors.businessRule(
      'CHECKOUT_SETUP_MODE',
      'A checkout session in setup mode takes no payment: its card is saved with POST /sessions/:sessionId/payment-instruments',
      { mode: 'setup' },
    );
}
