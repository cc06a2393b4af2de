/**
 * The instrument state machine of Document 3. active ⇄ expired and either → revoked by PATCH; DELETE revokes;
 * revoked is final. An active instrument whose card expiry month has passed IS expired, on every read and filter,
 * whether or not anything has stored that yet; it can only return to active with a later expiry (re-enrolment).
 */
import type { FilterQuery } from '@mikro-orm/core';
import type { InstrumentStatus, PaymentInstrument } from '../../../db/entities';
import { errors } from '../../../domain/platform/errors';
import { effectiveInstrumentStatus } from '../../../domain/payment-instruments/payment-instruments.presenter';

/** WHERE clause for instruments whose effective status is any of `statuses` at `now`. */
export function effectiveInstrumentStatusWhere(
  statuses: readonly InstrumentStatus[],
  now: Date,
): FilterQuery<PaymentInstrument> {
  const cardValid = { $or: [{ cardExpiresAt: null }, { cardExpiresAt: { $gt: now } }] };
  const clauses = statuses.map((status): FilterQuery<PaymentInstrument> => {
    if (status === 'active') return { status: 'active', ...cardValid };
    if (status === 'expired')
      return { $or: [{ status: 'expired' }, { status: 'active', cardExpiresAt: { $lte: now } }] };
    return { status };
  });
  return { $or: clauses };
}

/** Whether PATCH may move `from` (effective) to `to`; throws 422 otherwise. Same state is a no-op. */
export function assertStatusMove(instrument: PaymentInstrument, to: InstrumentStatus, now: Date): void {
  const from = effectiveInstrumentStatus(instrument, now);
  if (from === to) return;
  if (from === 'revoked') {
    throw errors.businessRule(
      'INVALID_STATE_TRANSITION',
      'A revoked payment instrument cannot be reactivated; enrol the card again',
      { status: from },
    );
  }
  if (to === 'active' && instrument.cardExpiresAt && instrument.cardExpiresAt.getTime() <= now.getTime()) {
    throw errors.businessRule(
      'INVALID_STATE_TRANSITION',
      'The card has passed its expiry date; enrol it again with the new expiry',
      { status: from },
    );
  }
}

/**
 * Charging code calls this before using a saved card: only an active instrument (card not past expiry) may be
 * charged. 422 PAYMENT_INSTRUMENT_NOT_CHARGEABLE otherwise.
 */
export function assertChargeable(instrument: PaymentInstrument, now: Date = new Date()): void {
  const status = effectiveInstrumentStatus(instrument, now);
  if (status !== 'active') {
    throw errors.businessRule(
      'PAYMENT_INSTRUMENT_NOT_CHARGEABLE',
      `The payment instrument is ${status} and cannot be charged`,
      {
        payment_instrument_id: instrument.id,
        status,
      },
    );
  }
}
