/**
 * provider_webhook_receipts: the one owner of the table's SQL. Inbound provider webhooks (domain/provider-webhooks/)
 * record each delivery that names an existing connector, the organization Dashboard reads them, housekeeping purges
 * old ones. The dedup record of the events themselves is provider_webhook_events (its own repository): receipts are
 * a log, purged after their retention; event rows are kept for as long as a duplicate may arrive.
 */
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';

export type ReceiptStatus = 'processed' | 'duplicate' | 'ignored' | 'failed' | 'invalid';

export interface ReceiptInput {
  connectorId: string;
  status: ReceiptStatus;
  /** Why it was refused, ignored or failed: a code (bad_signature, AMOUNT_MISMATCH…). */
  reason?: string | null;
  /** A fixed text from our code (never the provider's body, a header or a secret). */
  detail?: string | null;
  eventType?: string | null;
  providerEventId?: string | null;
  providerReference?: string | null;
}

/** Provider-supplied strings are cut to the column caps, so a hostile payload cannot bloat the table. */
const CAPS = { reason: 64, detail: 300, eventType: 100, providerEventId: 200, providerReference: 200 } as const;
const cap = (value: string | null | undefined, length: number) => (value == null ? null : value.slice(0, length));

export async function recordReceipt(em: EntityManager, input: ReceiptInput): Promise<void> {
  await em.execute(
    `insert into provider_webhook_receipts
       (id, connector_id, status, reason, detail, event_type, provider_event_id, provider_reference)
     values (?, ?, ?, ?, ?, ?, ?, ?)`,
    [
      randomUUID(),
      input.connectorId,
      input.status,
      cap(input.reason, CAPS.reason),
      cap(input.detail, CAPS.detail),
      cap(input.eventType, CAPS.eventType),
      cap(input.providerEventId, CAPS.providerEventId),
      cap(input.providerReference, CAPS.providerReference),
    ],
  );
}

export interface ReceiptRow {
  id: string;
  status: ReceiptStatus;
  reason: string | null;
  detail: string | null;
  event_type: string | null;
  provider_event_id: string | null;
  provider_reference: string | null;
  received_at: Date;
}

export interface ReceiptFilter {
  connectorId: string;
  /** inbound: the authentic deliveries (optionally those in any of `statuses`); invalid: the refused ones. */
  kind: 'inbound' | 'invalid';
  statuses?: ReadonlyArray<Exclude<ReceiptStatus, 'invalid'>>;
  from?: Date;
  to?: Date;
}

export async function listReceipts(
  em: EntityManager,
  filter: ReceiptFilter,
  page: { limit: number; offset: number },
): Promise<{ items: ReceiptRow[]; total: number }> {
  const conditions = ['connector_id = ?', filter.kind === 'invalid' ? "status = 'invalid'" : "status <> 'invalid'"];
  const values: unknown[] = [filter.connectorId];
  if (filter.statuses?.length) {
    conditions.push('status in (?)');
    values.push(filter.statuses);
  }
  if (filter.from) {
    conditions.push('received_at >= ?');
    values.push(filter.from);
  }
  if (filter.to) {
    conditions.push('received_at <= ?');
    values.push(filter.to);
  }
  const where = conditions.join(' and ');
  const items = await em.execute<ReceiptRow[]>(
    `select id, status, reason, detail, event_type, provider_event_id, provider_reference, received_at
     from provider_webhook_receipts where ${where} order by received_at desc, seq desc limit ? offset ?`,
    [...values, page.limit, page.offset],
  );
  const [{ total }] = await em.execute<Array<{ total: string }>>(
    `select count(*) as total from provider_webhook_receipts where ${where}`,
    values,
  );
  return { items, total: Number(total) };
}

/** Housekeeping: receipts older than the retention are deleted (in batches, so one run never holds a long lock). */
export async function purgeReceiptsBefore(em: EntityManager, cutoff: Date, batch = 5000): Promise<number> {
  let purged = 0;
  for (;;) {
    const result = await em.execute(
      `delete from provider_webhook_receipts where id in (
         select id from provider_webhook_receipts where received_at < ? limit ?)`,
      [cutoff, batch],
      'run',
    );
    const affected = (result as { affectedRows?: number }).affectedRows ?? 0;
    purged += affected;
    if (affected < batch) return purged;
  }
}
