/** The organization Dashboard's inbound-webhook logs: receipt rows as the API shows them. */
import type { ReceiptRow } from '../../../db/repositories/provider-webhook-receipts.repository';

export function presentInboundWebhook(row: ReceiptRow) {
  return {
    id: row.id,
    status: row.status as 'processed' | 'duplicate' | 'ignored' | 'failed',
    event_type: row.event_type,
    provider_event_id: row.provider_event_id,
    provider_reference: row.provider_reference,
    reason: row.reason,
    received_at: new Date(row.received_at).toISOString(),
  };
}

export function presentInvalidWebhook(row: ReceiptRow) {
  return {
    id: row.id,
    reason: row.reason as 'bad_signature' | 'malformed_body' | 'unknown_connector' | 'connector_inactive',
    detail: row.detail,
    received_at: new Date(row.received_at).toISOString(),
  };
}
