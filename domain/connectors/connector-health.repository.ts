/**
 * Connector health in PostgreSQL: reading circuits and windows, claiming the half-open probe, setting a circuit by
 * hand, and recording a circuit's opening or closing (activity log + event). Every change is one atomic statement
 * on the connector's row, so several workers never lose or double an update (no read-modify-write in JS).
 * The attempt's own statement keeps the failure counter (db/repositories/transaction-attempts.repository.ts).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { recordActivity, type Actor } from '../merchants/merchants.activity';
import { recordEvent } from '../events/events.outbox';
import {
  healthWindow,
  presentHealth,
  windowStart,
  type CircuitState,
  type HealthRow,
  type WindowCounts,
} from './connector-health';

interface HealthDbRow {
  connector_id: string;
  state: CircuitState;
  consecutive_failures: number;
  opened_at: Date | string | null;
  next_probe_at: Date | string | null;
  last_failure_at: Date | string | null;
  last_failure_code: string | null;
}

const date = (value: Date | string | null) => (value === null ? null : new Date(value));

export const healthRowOf = (row: HealthDbRow): HealthRow => ({
  state: row.state,
  consecutiveFailures: row.consecutive_failures,
  openedAt: date(row.opened_at),
  nextProbeAt: date(row.next_probe_at),
  lastFailureAt: date(row.last_failure_at),
  lastFailureCode: row.last_failure_code,
});

export const HEALTH_COLUMNS =
  'connector_id, state, consecutive_failures, opened_at, next_probe_at, last_failure_at, last_failure_code';

/** The circuits of these connectors (a connector without a row has never failed: closed). */
export async function readCircuits(
  em: EntityManager,
  connectorIds: readonly string[],
): Promise<Map<string, HealthRow>> {
  if (connectorIds.length === 0) return new Map();
  const rows = await em.execute<HealthDbRow[]>(
    `select ${HEALTH_COLUMNS} from connector_health where connector_id in (?)`,
    [connectorIds],
  );
  return new Map(rows.map((row) => [row.connector_id, healthRowOf(row)]));
}

/** Finished attempts per connector over the sliding window (served by transaction_attempts_connector_window_idx). */
export async function readWindows(
  em: EntityManager,
  connectorIds: readonly string[],
  now = new Date(),
): Promise<Map<string, WindowCounts>> {
  if (connectorIds.length === 0) return new Map();
  const rows = await em.execute<
    Array<{ connector_id: string; attempts: string; approved: string; declined: string; errors: string }>
  >(
    `select connector_id, count(*) as attempts,
            count(*) filter (where outcome in ('approved', 'pending')) as approved,
            count(*) filter (where outcome in ('soft_decline', 'hard_decline')) as declined,
            count(*) filter (where status = 'error') as errors
       from transaction_attempts
      where connector_id in (?) and started_at >= ?::timestamptz and outcome is not null
      group by connector_id`,
    [connectorIds, windowStart(now)],
  );
  return new Map(
    rows.map((row) => [
      row.connector_id,
      {
        attempts: Number(row.attempts),
        approved: Number(row.approved),
        declined: Number(row.declined),
        errors: Number(row.errors),
      },
    ]),
  );
}

const EMPTY_WINDOW: WindowCounts = { attempts: 0, approved: 0, declined: 0, errors: 0 };

/** The presented `health` of each connector: its circuit and its window, read in two statements for any number. */
export async function healthOf(
  em: EntityManager,
  connectorIds: readonly string[],
): Promise<Map<string, ReturnType<typeof presentHealth>>> {
  const now = new Date();
  const [circuits, windows] = await Promise.all([readCircuits(em, connectorIds), readWindows(em, connectorIds, now)]);
  return new Map(
    connectorIds.map((id) => [
      id,
      presentHealth(circuits.get(id), healthWindow(windows.get(id) ?? EMPTY_WINDOW, windowStart(now))),
    ]),
  );
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

/**
 * Records a circuit's opening or closing in the merchant activity log and as connector.circuit_opened /
 * connector.circuit_closed, in one transaction (the caller's).
 */
export async function recordCircuitTransition(
  em: EntityManager,
  input: { connectorId: string; transition: CircuitTransition; actor: Actor; reason: string },
): Promise<void> {
  const [connector] = await em.execute<
    Array<{ id: string; merchant_id: string; organization_id: string; name: string; provider_slug: string }>
  >(
    `select c.id, c.merchant_id, m.organization_id, c.name, c.provider_slug
       from merchant_connectors c join merchants m on m.id = c.merchant_id where c.id = ?`,
    [input.connectorId],
  );
  if (!connector) return;
  const health = (await healthOf(em, [connector.id])).get(connector.id)!;
  recordActivity(em, {
    organizationId: connector.organization_id,
    merchantId: connector.merchant_id,
    action: input.transition === 'opened' ? 'connector.circuit_opened' : 'connector.circuit_closed',
    actor: input.actor,
    changes: { circuit: { to: health.state }, reason: input.reason },
  });
  await em.flush();
  await recordEvent(em, {
    organizationId: connector.organization_id,
    merchantId: connector.merchant_id,
    type: input.transition === 'opened' ? 'connector.circuit_opened' : 'connector.circuit_closed',
    object: {
      id: connector.id,
      object: 'connector',
      merchant_id: connector.merchant_id,
      name: connector.name,
      provider_slug: connector.provider_slug,
      health,
      reason: input.reason,
    },
  });
}
