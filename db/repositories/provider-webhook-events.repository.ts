/**
 * provider_webhook_events: the one owner of the table's SQL. One row per authentic provider event received, unique
 * per connector and provider event id, inserted in the delivery's own database transaction together with its effect
 * (domain/provider-webhooks/): a duplicate delivery finds the row and changes nothing. The row names the transaction
 * the event was kept or refused for (the Dashboard's and support's trail). Rows are kept: they are the dedup record.
 */
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';

export interface ProviderEventKey {
  connectorId: string;
  providerEventId: string;
}

/** Inserts the event's row; false when this connector already received that provider event (a duplicate). */
export async function claimProviderEvent(
  em: EntityManager,
  key: ProviderEventKey,
  event: { eventType: string; providerReference: string },
): Promise<boolean> {
  const inserted = await em.execute<Array<{ id: string }>>(
    `insert into provider_webhook_events (id, connector_id, provider_event_id, event_type, provider_reference)
     values (?, ?, ?, ?, ?) on conflict (connector_id, provider_event_id) do nothing returning id`,
    [randomUUID(), key.connectorId, key.providerEventId, event.eventType, event.providerReference],
  );
  return inserted.length > 0;
}

/** The event's row names the transaction it was about. */
export async function linkProviderEventToTransaction(
  em: EntityManager,
  key: ProviderEventKey,
  transactionId: string,
): Promise<void> {
  await em.execute(
    `update provider_webhook_events set transaction_id = ? where connector_id = ? and provider_event_id = ?`,
    [transactionId, key.connectorId, key.providerEventId],
  );
}
