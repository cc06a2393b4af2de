/**
 * What a charge attempt tells operators: its counter (switchyard_charge_attempts_total) and the attributes of its
 * activity's span — ids, the attempt number and the normalised outcome; never the card, the credentials or the
 * buyer, which the attempt holds only between reading them and the adapter call.
 */
import { countChargeAttempt } from '../../domain/platform/metrics';
import { annotateActiveSpan } from '../../domain/platform/tracing';
import type { AttemptInput, Outcome } from '../../workflows/lib/transaction-types';

export function observeChargeAttempt(input: AttemptInput, paymentMethod: string, outcome: Outcome): void {
  countChargeAttempt({
    provider: input.attempt.providerSlug,
    connector: input.attempt.connectorId,
    paymentMethod,
    outcome,
  });
  annotateActiveSpan({
    'switchyard.merchant_id': input.merchantId,
    'switchyard.transaction_id': input.transactionId,
    'switchyard.connector_id': input.attempt.connectorId,
    'switchyard.provider': input.attempt.providerSlug,
    'switchyard.payment_method': paymentMethod,
    'switchyard.attempt_number': input.attemptNumber,
    'switchyard.outcome': outcome,
  });
}
