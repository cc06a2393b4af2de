/**
 * connector_health writes: a charge attempt's answer counted on its connector's circuit (a part of the attempt's own
 * statement), claiming an open circuit's half-open probe and setting a circuit by hand. Each is one atomic statement
 * on the connector's row, so several workers or requests never lose or double an update (no read-modify-write in JS).
 */
import type { EntityManager } from '@mikro-orm/postgresql';

type CircuitState = 'closed' | 'open' | 'half_open';

/**
 * The circuit's part of a charge attempt's statement (transaction-attempts.repository.ts recordAttemptResult), as
 * the body of a CTE returning (state, moved, reopened), applied only when `onlyIf` holds (the attempt's statement
 * finished it). A failure upserts the connector's row: one more consecutive failure; reaching the threshold opens a
 * closed circuit and any failure reopens a half-open one. Atomic on the row under PostgreSQL's row lock, so workers
 * running attempts at once all count.
 */
export function failureOnCircuit(
  connectorId: string,
  failureCode: string | null,
  onlyIf: string,
): { sql: string; params: unknown[] } {
  return {
    sql: `
       insert into connector_health as h (connector_id, merchant_id, state, consecutive_failures, failure_threshold,
         cooldown_seconds, opened_at, next_probe_at, last_failure_at, last_failure_code, changed_at, updated_at)
       select c.id, c.merchant_id, case when s.threshold <= 1 then 'open' else 'closed' end, 1, s.threshold, s.cooldown,
              case when s.threshold <= 1 then now() end,
              case when s.threshold <= 1 then now() + s.cooldown * interval '1 second' end,
              now(), ?, case when s.threshold <= 1 then now() end, now()
         from merchant_connectors c
         cross join lateral (select coalesce((c.config->'circuit_breaker'->>'failure_threshold')::int, 5) as threshold,
                                    coalesce((c.config->'circuit_breaker'->>'cooldown_seconds')::int, 60) as cooldown) s
        where c.id = ? and ${onlyIf}
       on conflict (connector_id) do update set
         consecutive_failures = h.consecutive_failures + 1,
         failure_threshold = excluded.failure_threshold, cooldown_seconds = excluded.cooldown_seconds,
         state = case when h.state = 'half_open' or (h.state = 'closed' and h.consecutive_failures + 1 >= excluded.failure_threshold)
                      then 'open' else h.state end,
         opened_at = case when h.state = 'half_open' or (h.state = 'closed' and h.consecutive_failures + 1 >= excluded.failure_threshold)
                          then now() else h.opened_at end,
         next_probe_at = case when h.state = 'half_open' or (h.state = 'closed' and h.consecutive_failures + 1 >= excluded.failure_threshold)
                              then now() + excluded.cooldown_seconds * interval '1 second' else h.next_probe_at end,
         changed_at = case when h.state = 'half_open' or (h.state = 'closed' and h.consecutive_failures + 1 >= excluded.failure_threshold)
                           then now() else h.changed_at end,
         last_failure_at = now(), last_failure_code = excluded.last_failure_code, updated_at = now()
       returning h.state, h.changed_at = now() as moved, h.consecutive_failures > h.failure_threshold as reopened
     `,
    params: [failureCode, connectorId],
  };
}

/**
 * A success's part of the attempt's statement, as failureOnCircuit: it touches the row only while it holds failures
 * or a probe (a half-open circuit closes), so a healthy connector costs no write at all.
 */
export function successOnCircuit(connectorId: string, onlyIf: string): { sql: string; params: unknown[] } {
  return {
    sql: `
       update connector_health h set consecutive_failures = 0,
              state = case when h.state = 'half_open' then 'closed' else h.state end,
              opened_at = case when h.state = 'half_open' then null else h.opened_at end,
              next_probe_at = case when h.state = 'half_open' then null else h.next_probe_at end,
              changed_at = case when h.state = 'half_open' then now() else h.changed_at end,
              updated_at = now()
        where h.connector_id = ? and (h.consecutive_failures > 0 or h.state = 'half_open')
          and ${onlyIf}
       returning h.state, h.changed_at = now() as moved, h.consecutive_failures > h.failure_threshold as reopened
     `,
    params: [connectorId],
  };
}

/**
 * Claims the one probe of an open circuit whose cool-down has passed: it becomes half-open and its next probe time
 * moves a cool-down ahead (so a probe that never reports is retried then). Atomic: of two planners, one wins.
 */
export async function claimProbe(em: EntityManager, connectorId: string): Promise<boolean> {
  const rows = await em.execute<Array<{ connector_id: string }>>(
    `update connector_health
        set state = 'half_open', next_probe_at = now() + cooldown_seconds * interval '1 second', updated_at = now()
      where connector_id = ? and state in ('open', 'half_open') and next_probe_at <= now()
      returning connector_id`,
    [connectorId],
  );
  return rows.length > 0;
}

export type CircuitTransition = 'opened' | 'closed';

/**
 * Sets a circuit by hand (owner action): open starts a cool-down from now; closed clears the failures. Returns the
 * transition, or null when the circuit was already in that state.
 */
export async function setCircuit(
  em: EntityManager,
  connector: { id: string; merchantId: string; failureThreshold: number; cooldownSeconds: number },
  to: 'open' | 'closed',
): Promise<CircuitTransition | null> {
  const [row] = await em.execute<Array<{ before: CircuitState | null }>>(
    `with before as (select state from connector_health where connector_id = ? for update),
     written as (
       insert into connector_health (connector_id, merchant_id, state, consecutive_failures, failure_threshold,
         cooldown_seconds, opened_at, next_probe_at, changed_at, updated_at)
       values (?, ?, ?::text, 0, ?::int, ?::int, case when ?::text = 'open' then now() end,
               case when ?::text = 'open' then now() + ?::int * interval '1 second' end, now(), now())
       on conflict (connector_id) do update set state = excluded.state,
         consecutive_failures = case when excluded.state = 'closed' then 0 else connector_health.consecutive_failures end,
         failure_threshold = excluded.failure_threshold, cooldown_seconds = excluded.cooldown_seconds,
         opened_at = excluded.opened_at, next_probe_at = excluded.next_probe_at, changed_at = now(), updated_at = now()
       returning 1)
     select (select state from before) as before, (select count(*) from written) as written`,
    [
      connector.id,
      connector.id,
      connector.merchantId,
      to,
      connector.failureThreshold,
      connector.cooldownSeconds,
      to,
      to,
      connector.cooldownSeconds,
    ],
  );
  const before = row?.before ?? 'closed';
  if (to === 'open') return before === 'open' ? null : 'opened';
  return before === 'closed' ? null : 'closed';
}

/** A connector_health row as stored (timestamps as Date or text). */
export interface CircuitRow {
  connector_id: string;
  state: CircuitState;
  consecutive_failures: number;
  opened_at: Date | string | null;
  next_probe_at: Date | string | null;
  last_failure_at: Date | string | null;
  last_failure_code: string | null;
}

/** The circuits of these connectors that have a row (a connector without one has never failed: closed). */
export async function circuitRows(em: EntityManager, connectorIds: readonly string[]): Promise<CircuitRow[]> {
  if (connectorIds.length === 0) return [];
  return em.execute<CircuitRow[]>(
    `select connector_id, state, consecutive_failures, opened_at, next_probe_at, last_failure_at, last_failure_code
       from connector_health where connector_id in (?)`,
    [connectorIds],
  );
}

/** Finished attempts per connector since `since`, by kind (counts as text: bigint). */
export interface WindowCountRow {
  connector_id: string;
  attempts: string;
  approved: string;
  declined: string;
  errors: string;
}

/** The sliding window's figures of these connectors (served by transaction_attempts_connector_window_idx). */
export async function windowCountRows(
  em: EntityManager,
  connectorIds: readonly string[],
  since: Date,
): Promise<WindowCountRow[]> {
  if (connectorIds.length === 0) return [];
  return em.execute<WindowCountRow[]>(
    `select connector_id, count(*) as attempts,
            count(*) filter (where outcome in ('approved', 'pending')) as approved,
            count(*) filter (where outcome in ('soft_decline', 'hard_decline')) as declined,
            count(*) filter (where status = 'error') as errors
       from transaction_attempts
      where connector_id in (?) and started_at >= ?::timestamptz and outcome is not null
      group by connector_id`,
    [connectorIds, since],
  );
}

/** What a circuit's opening or closing is recorded with: the connector, its merchant and organization. */
export interface CircuitConnectorRow {
  id: string;
  merchant_id: string;
  organization_id: string;
  name: string;
  provider_slug: string;
  is_test_mode: boolean;
}

export async function circuitConnector(
  em: EntityManager,
  connectorId: string,
): Promise<CircuitConnectorRow | undefined> {
  const [connector] = await em.execute<CircuitConnectorRow[]>(
    `select c.id, c.merchant_id, m.organization_id, c.name, c.provider_slug, c.is_test_mode
       from merchant_connectors c join merchants m on m.id = c.merchant_id where c.id = ?`,
    [connectorId],
  );
  return connector;
}
