/**
 * Connector health over its repository (db/repositories/connector-health.repository.ts, which holds the SQL): the
 * circuits and sliding windows of connectors as the API presents them and routing orders them, and a circuit's
 * opening or closing recorded (activity log + event). The attempt's own statement keeps the failure counter.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  circuitConnector,
  circuitRows,
  windowCountRows,
  type CircuitRow,
  type CircuitTransition,
} from '../../db/repositories/connector-health.repository';
import { recordActivity, type Actor } from '../merchants/merchants.activity';
import { recordEvent } from '../events/events.outbox';
import { healthWindow, presentHealth, windowStart, type HealthRow, type WindowCounts } from './connector-health';

const date = (value: Date | string | null) => (value === null ? null : new Date(value));

export const healthRowOf = (row: CircuitRow): HealthRow => ({
  state: row.state,
  consecutiveFailures: row.consecutive_failures,
  openedAt: date(row.opened_at),
  nextProbeAt: date(row.next_probe_at),
  lastFailureAt: date(row.last_failure_at),
  lastFailureCode: row.last_failure_code,
});

/** The circuits of these connectors (a connector without a row has never failed: closed). */
export async function readCircuits(
  em: EntityManager,
  connectorIds: readonly string[],
): Promise<Map<string, HealthRow>> {
  const rows = await circuitRows(em, connectorIds);
  return new Map(rows.map((row) => [row.connector_id, healthRowOf(row)]));
}

/** Finished attempts per connector over the sliding window (served by transaction_attempts_connector_window_idx). */
export async function readWindows(
  em: EntityManager,
  connectorIds: readonly string[],
  now = new Date(),
): Promise<Map<string, WindowCounts>> {
  const rows = await windowCountRows(em, connectorIds, windowStart(now));
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
  const connector = await circuitConnector(em, input.connectorId);
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
