/**
 * Why a charge ended without money (failed, expired, canceled): written on the transaction with the move, so the
 * API, webhooks and the Dashboard say why even when no provider was tried (Document 3: "a timeline explaining
 * why"; the timeline is empty when routing found no connector).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { TransactionStatus } from '../../db/entities';
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
  // Locking read: a payment.failed webhook records the provider's reason on the attempt before it signals the
  // verdict, in its own transaction; this waits for that to commit rather than read the attempt without it.
  const [last] = await em.execute<
    Array<{
      provider_slug: string;
      status: string;
      outcome: string | null;
      error_code: string | null;
      message: string | null;
      late_decline_code: string | null;
      late_decline_message: string | null;
    }>
  >(
    `select provider_slug, status, outcome, error_code, error_message as message, late_decline_code, late_decline_message
       from transaction_attempts where transaction_id = ? order by attempt_number desc limit 1 for share`,
    [transactionId],
  );
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
  const [refused] = await em.execute<Array<{ token: boolean | null; checkout: boolean | null }>>(
    `select k.used_by is not null and k.used_by <> t.id as token,
            c.paying_transaction_id <> t.id or c.status <> 'payment_pending' as checkout
       from transactions t
       left join card_tokens k on k.id = t.card_token_id
       left join checkout_sessions c on c.id = t.checkout_session_id
      where t.id = ?`,
    [transactionId],
  );
  if (refused?.token) return reason('card_token_already_used');
  return refused?.checkout ? reason('checkout_session_unavailable') : reason('no_route');
}
