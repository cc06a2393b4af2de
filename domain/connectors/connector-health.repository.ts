/**
 * Connector health in PostgreSQL: reading circuits and windows, claiming the half-open probe, setting a circuit by
 * hand, and recording a circuit's opening or closing (activity log + event). The writes (claim, set) are in
 * db/repositories/connector-health.repository.ts; the attempt's own statement keeps the failure counter
 * (db/repositories/transaction-attempts.repository.ts).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { CircuitTransition } from '../../db/repositories/connector-health.repository';
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
 * Records a circuit's opening or closing in the merchant activity log and as connector.circuit_opened /
 * connector.circuit_closed, in one transaction (the caller's).
 */
export async function recordCircuitTransition(
  em: EntityManager,
  input: { connectorId: string; transition: CircuitTransition; actor: Actor; reason: string },
): Promise<void> {
  const [connector] = await em.execute<
    Array<{
      id: string;
      merchant_id: string;
      organization_id: string;
      name: string;
      provider_slug: string;
      is_test_mode: boolean;
    }>
  >(
    `select c.id, c.merchant_id, m.organization_id, c.name, c.provider_slug, c.is_test_mode
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
    livemode: !connector.is_test_mode,
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
