/**
 * Why a charge ended without money (failed, expired, canceled): written on the transaction with the move, so the
 * API, webhooks and the Dashboard say why even when no provider was tried (Document 3: "a timeline explaining
 * why"; the timeline is empty when routing found no connector).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { TransactionStatus } from '../../db/entities';
import { lastAttemptOutcome } from '../../db/repositories/transaction-attempt-reads.repository';
import { refusalBeforeProvider } from '../../db/repositories/transactions.repository';
import { providerCodeOf } from '../../workflows/lib/failure-codes';
import { attemptFailureCode } from '../connectors/failure-codes';

/** failureCode: the one vocabulary (workflows/lib/failure-codes.ts); providerCode: the provider's own, when one decided. */
export interface FailureReason {
  failureCode: string;
  failureMessage: string;
  providerCode: string | null;
}

export const FAILURE_REASONS = {
  no_route: 'No connector of the routing plan can take this charge (payment method, card brand, currency or amount)',
  card_token_already_used: 'The card token was already used by another transaction',
  checkout_session_unavailable: 'The checkout session was being paid by another payment, or could no longer be paid',
  declined: 'The provider declined the charge',
  payment_failed: 'The provider reported that the pending payment failed',
  payment_expired: 'The payment was not completed before it expired',
  canceled: 'The pending payment was canceled before completion',
} as const;

const reason = (code: keyof typeof FAILURE_REASONS): FailureReason => ({
  failureCode: code,
  failureMessage: FAILURE_REASONS[code],
  providerCode: null,
});

/** The reason for a charge ending `to`; null when `to` took money (nothing to explain). */
export async function failureReasonOf(
  em: EntityManager,
  transactionId: string,
  to: TransactionStatus,
): Promise<FailureReason | null> {
  if (to === 'expired') return reason('payment_expired');
  if (to === 'canceled') return reason('canceled');
  if (to !== 'failed') return null;
  // A locking read: it waits for a payment.failed webhook that is recording the provider's reason on the attempt.
  const last = await lastAttemptOutcome(em, transactionId);
  if (last) {
    // A pending payment the provider then failed (its attempt had succeeded in going pending): the provider's own
    // reason when its read or webhook gave one (transactions.late-declines.ts), the generic one otherwise.
    if (last.status === 'success' || last.status === 'pending') {
      if (last.late_decline_code === null && last.late_decline_message === null) return reason('payment_failed');
      const code = last.late_decline_code;
      return {
        failureCode: code === null ? 'payment_failed' : attemptFailureCode(last.provider_slug, code, 'soft_decline')!,
        failureMessage: last.late_decline_message ?? FAILURE_REASONS.payment_failed,
        providerCode: code,
      };
    }
    return {
      failureCode: attemptFailureCode(last.provider_slug, last.error_code, last.outcome) ?? 'declined',
      failureMessage: last.message ?? FAILURE_REASONS.declined,
      providerCode: providerCodeOf(last.error_code),
    };
  }
  // Refused before any provider: its single-use token, or its checkout (which takes one payment), was another's.
  const refused = await refusalBeforeProvider(em, transactionId);
  if (refused?.token) return reason('card_token_already_used');
  return refused?.checkout ? reason('checkout_session_unavailable') : reason('no_route');
}
