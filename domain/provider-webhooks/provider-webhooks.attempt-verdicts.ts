/**
 * A provider's payment verdict (payment.succeeded / payment.failed webhook) for a charge attempt that never got its
 * answer. When the attempt's answer was lost and its lookup could not tell, the attempt is left
 * provider_outcome_unknown and the transaction waits `pending` while the charge's own resolution looks the attempt up
 * (failed once its horizon passes); at a provider with no read (Adyen), the payment notification is the only record
 * of what it did. The verdict is kept on the attempt, in the webhook's own database transaction (so a duplicate
 * delivery, refused by the dedup row, changes nothing). While the transaction is pending, the resolution takes it as
 * the answer (approved → authorized, declined → failed), woken by the webhook; once the transaction has failed, the
 * reconciler acts on it: approved → the charge is given back, declined → nothing was taken. The transaction is never
 * moved here.
 *
 * The notification may also arrive while the attempt is still waiting for its answer (the provider notifies within
 * seconds, our call times out later): the verdict is then kept on that attempt already, and read only if the attempt
 * ends unresolved. Only attempts on the connector that received the webhook are considered (a connector's webhook
 * acts on its own payments only), and never one for a payment reference another attempt of the transaction already
 * answered with (an earlier attempt's decline at the same provider carries the same merchant reference).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { InboundWebhook } from '../connectors/connector';
import { keepWebhookVerdict } from '../../db/repositories/transaction-attempts.repository';
import { linkProviderEventToTransaction } from '../../db/repositories/provider-webhook-events.repository';
import { UNRESOLVED_PROVIDER_CALL } from '../../workflows/lib/transaction-types';

/** Longest provider reference kept (the column's check); a longer one cannot be ours to reverse. */
const REFERENCE_MAX = 200;

/**
 * Records the verdict on the transaction's unanswered attempt at this connector, if there is one; returns null when
 * it did not, else whether the charge's resolution waits on that attempt (the transaction is pending with the attempt
 * unresolved: the caller wakes it once this is committed). An approved verdict replaces a declined one (money taken
 * must be given back), never the other way round.
 */
export async function recordWebhookVerdictOnUnansweredAttempt(
  em: EntityManager,
  scope: { connectorId: string; merchantId: string },
  event: Pick<InboundWebhook, 'type' | 'eventId' | 'reference' | 'providerReference'>,
): Promise<{ awaitsResolution: boolean } | null> {
  if (event.type !== 'payment.succeeded' && event.type !== 'payment.failed') return null;
  if (!event.reference?.startsWith('tx_') || event.providerReference.length > REFERENCE_MAX) return null;
  const kept = await keepWebhookVerdict(
    em,
    { transactionId: event.reference, merchantId: scope.merchantId, connectorId: scope.connectorId },
    {
      verdict: event.type === 'payment.succeeded' ? 'approved' : 'declined',
      providerReference: event.providerReference,
    },
    UNRESOLVED_PROVIDER_CALL,
  );
  if (!kept) return null;
  // The delivery's row names the transaction it was kept for (the Dashboard's and support's trail).
  await linkProviderEventToTransaction(
    em,
    { connectorId: scope.connectorId, providerEventId: event.eventId },
    event.reference,
  );
  return kept;
}
