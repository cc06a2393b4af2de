/**
 * The outgoing-webhook tables' raw statements: webhook_deliveries, the delivery log (one row per attempt) the
 * delivery activity writes and the API and recoveries read; and merchant_webhook_configs' two conditional
 * single-statement writes an attempt makes (the API creates and edits configurations through their entity,
 * api/modules/webhooks/).
 */
import type { EntityManager } from '@mikro-orm/postgresql';

export interface DeliveryAttemptRow {
  id: string;
  merchantId: string;
  configId: string;
  eventId: string;
  eventType: string;
  workflowId: string;
  trigger: string;
  attemptNumber: number;
  targetUrl: string | null;
  httpStatusCode: number | null;
  responseBody: string | null;
  error: string | null;
  status: string;
  nextRetryAt: Date | null;
  durationMs: number | null;
  sentAt: Date | null;
}

/** One row per (workflow, attempt number): a retried activity overwrites its own attempt's row. */
export async function recordDeliveryAttempt(em: EntityManager, row: DeliveryAttemptRow): Promise<void> {
  await em.execute(
    // livemode is the event's: a delivery is test data exactly when what it reports is.
    `insert into webhook_deliveries (id, merchant_id, merchant_webhook_config_id, event_id, event_type, workflow_id, trigger,
        attempt_number, target_url, http_status_code, response_body, error, status, next_retry_at, duration_ms, sent_at,
        livemode)
     values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, (select livemode from events where id = ?))
     on conflict (workflow_id, attempt_number) do update set
       target_url = excluded.target_url, http_status_code = excluded.http_status_code, response_body = excluded.response_body,
       error = excluded.error, status = excluded.status, next_retry_at = excluded.next_retry_at,
       duration_ms = excluded.duration_ms, sent_at = excluded.sent_at`,
    [
      row.id,
      row.merchantId,
      row.configId,
      row.eventId,
      row.eventType,
      row.workflowId,
      row.trigger,
      row.attemptNumber,
      row.targetUrl,
      row.httpStatusCode,
      row.responseBody,
      row.error,
      row.status,
      row.nextRetryAt,
      row.durationMs,
      row.sentAt,
      row.eventId,
    ],
  );
}

/**
 * Failed attempts (config id, since, until as parameters) of events never delivered successfully to that
 * configuration: what "recover" resends. The configuration is one the caller read within its merchant.
 */
const RECOVERABLE_DELIVERIES = `from webhook_deliveries d
  where d.merchant_webhook_config_id = ? and d.status = 'failed' and d.created_at >= ? and d.created_at <= ?
    and not exists (select 1 from webhook_deliveries s
                     where s.merchant_webhook_config_id = d.merchant_webhook_config_id and s.event_id = d.event_id
                       and s.status = 'succeeded')`;

export interface RecoveryRange {
  configId: string;
  since: Date | string;
  until: Date | string;
}

/** How many events a recovery of this range would resend (what the API reports it queues). */
export async function recoverableEventCount(em: EntityManager, range: RecoveryRange): Promise<number> {
  const [{ count }] = await em.execute<{ count: string }[]>(
    `select count(distinct d.event_id) as count ${RECOVERABLE_DELIVERIES}`,
    [range.configId, range.since, range.until],
  );
  return Number(count);
}

/** The next `limit` events a recovery of this range resends, after the event id `after`, in event id order. */
export async function recoverableEvents(
  em: EntityManager,
  range: RecoveryRange,
  page: { after: string; limit: number },
): Promise<Array<{ event_id: string; event_type: string }>> {
  return em.execute<{ event_id: string; event_type: string }[]>(
    `select distinct d.event_id, d.event_type ${RECOVERABLE_DELIVERIES} and d.event_id > ? order by d.event_id limit ?`,
    [range.configId, range.since, range.until, page.after, page.limit],
  );
}

/** last_triggered_at only ever moves forward (deliveries finish out of order). */
export async function touchLastTriggered(em: EntityManager, configId: string, at: Date): Promise<void> {
  await em.execute(
    'update merchant_webhook_configs set last_triggered_at = greatest(coalesce(last_triggered_at, ?), ?) where id = ?',
    [at, at, configId],
  );
}

/** Deactivates an active configuration (a 410 from its receiver); true when this call did it. */
export async function deactivateConfig(em: EntityManager, configId: string): Promise<boolean> {
  const rows = await em.execute<{ id: string }[]>(
    'update merchant_webhook_configs set is_active = false, updated_at = now() where id = ? and is_active returning id',
    [configId],
  );
  return rows.length > 0;
}
