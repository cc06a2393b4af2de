/**
 * The reads behind the worker's gauges (worker/telemetry.ts): the state of every connector's circuit, the webhook
 * backlog and the charge attempts whose provider outcome is still unknown. They are the system's totals for its
 * operators, across every merchant by design (no tenant asks for them; no row value leaves but counts, connector
 * ids and provider slugs). Each count rides a partial index or a small table.
 */
import type { EntityManager } from '@mikro-orm/postgresql';

export interface OperationalGauges {
  circuits: Array<{ connectorId: string; providerSlug: string; state: 'closed' | 'open' | 'half_open' }>;
  eventsAwaitingFanOut: number;
  deliveriesAwaitingRetry: number;
  unknownOutcomes: number;
}

/** `unresolvedCode`: the error_code of an attempt whose provider outcome is unknown (UNRESOLVED_PROVIDER_CALL). */
export async function readOperationalGauges(em: EntityManager, unresolvedCode: string): Promise<OperationalGauges> {
  const [circuits, [counts]] = await Promise.all([
    em.execute<Array<{ connector_id: string; provider_slug: string; state: 'closed' | 'open' | 'half_open' }>>(
      `select h.connector_id, c.provider_slug, h.state
         from connector_health h join merchant_connectors c on c.id = h.connector_id`,
    ),
    // A delivery waits for a retry while its latest attempt is `retrying` (a later attempt has its own row). One whose
    // retry was due over a week ago is dead (its workflow was ended by hand), not backlog: the bound keeps the scan on
    // the partial index's recent rows.
    em.execute<Array<{ fan_out: string; retry: string; unknown: string }>>(
      `select (select count(*) from events where fanned_out_at is null) as fan_out,
              (select count(*) from webhook_deliveries d
                where d.status = 'retrying' and d.next_retry_at > now() - interval '7 days'
                  and not exists (select 1 from webhook_deliveries n
                                   where n.workflow_id = d.workflow_id and n.attempt_number > d.attempt_number)) as retry,
              (select count(*) from transaction_attempts where error_code = ?) as unknown`,
      [unresolvedCode],
    ),
  ]);
  return {
    circuits: circuits.map((row) => ({
      connectorId: row.connector_id,
      providerSlug: row.provider_slug,
      state: row.state,
    })),
    eventsAwaitingFanOut: Number(counts.fan_out),
    deliveriesAwaitingRetry: Number(counts.retry),
    unknownOutcomes: Number(counts.unknown),
  };
}
