/**
 * Connector health: which attempt outcomes count against a connector's circuit, the circuit breaker's settings, the
 * sliding window's figures and the health object the API presents (pure, first), then the circuits and windows read
 * through the repository and a circuit's transitions recorded (below). The SQL that keeps the counters lives in
 * db/repositories/connector-health.repository.ts and in the attempt's own statement.
 */
import type { Outcome } from '../../workflows/lib/transaction-types';
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

export type CircuitState = 'closed' | 'open' | 'half_open';

export const CIRCUIT_DEFAULTS = { failure_threshold: 5, cooldown_seconds: 60 } as const;
export const CIRCUIT_LIMITS = {
  failure_threshold: { min: 1, max: 1000 },
  cooldown_seconds: { min: 1, max: 86_400 },
} as const;

/** The sliding window the health figures and the approval-rate ordering read: the last 15 minutes. */
export const HEALTH_WINDOW_MINUTES = 15;

export function circuitSettings(
  config: { circuit_breaker?: { failure_threshold?: number; cooldown_seconds?: number } } | null,
) {
  return {
    failureThreshold: config?.circuit_breaker?.failure_threshold ?? CIRCUIT_DEFAULTS.failure_threshold,
    cooldownSeconds: config?.circuit_breaker?.cooldown_seconds ?? CIRCUIT_DEFAULTS.cooldown_seconds,
  };
}

/**
 * What an attempt says about its connector: `failure` when the provider could not be reached or failed itself (an
 * unknown outcome, a refused connection, a timeout, a 5xx — `processing_error` with an http_5xx code is a 5xx the
 * lookup found nothing for); `success` when the provider answered (approvals and declines alike: a decline is the
 * card's verdict, not the connector's health); `none` when nothing was sent (the attempt's setup failed).
 */
export function healthSignal(outcome: Outcome, rawCode: string | null): 'success' | 'failure' | 'none' {
  if (outcome === 'unknown' || outcome === 'network_error') return 'failure';
  if (outcome === 'processing_error') {
    if (rawCode && /^http_5\d\d$/.test(rawCode)) return 'failure';
    if (rawCode === 'timeout' || rawCode === 'connection' || rawCode === 'refused') return 'failure';
    if (rawCode === 'attempt_setup_failed') return 'none';
  }
  return 'success';
}

export interface WindowCounts {
  attempts: number;
  approved: number;
  declined: number;
  errors: number;
}

export interface HealthWindow extends WindowCounts {
  /** approved / attempts, rounded to 4 places; null with no finished attempt in the window. */
  approval_rate: number | null;
  since: string;
}

/** The window's figures: finished attempts since `since` (in-flight attempts are not counted). */
export function healthWindow(counts: WindowCounts, since: Date): HealthWindow {
  const rate = counts.attempts > 0 ? Math.round((counts.approved / counts.attempts) * 10_000) / 10_000 : null;
  return { ...counts, approval_rate: rate, since: since.toISOString() };
}

export const windowStart = (now: Date) => new Date(now.getTime() - HEALTH_WINDOW_MINUTES * 60_000);

export interface HealthRow {
  state: CircuitState;
  consecutiveFailures: number;
  openedAt: Date | null;
  nextProbeAt: Date | null;
  lastFailureAt: Date | null;
  lastFailureCode: string | null;
}

export const CLOSED_HEALTH: HealthRow = {
  state: 'closed',
  consecutiveFailures: 0,
  openedAt: null,
  nextProbeAt: null,
  lastFailureAt: null,
  lastFailureCode: null,
};

const iso = (at: Date | null) => (at ? at.toISOString() : null);

/** The connector's `health` object (GET connector, lists, organization views, events). */
export function presentHealth(row: HealthRow | undefined, window: HealthWindow) {
  const health = row ?? CLOSED_HEALTH;
  return {
    state: health.state,
    consecutive_failures: health.consecutiveFailures,
    opened_at: health.state === 'closed' ? null : iso(health.openedAt),
    next_probe_at: health.state === 'closed' ? null : iso(health.nextProbeAt),
    last_failure_at: iso(health.lastFailureAt),
    last_failure_code: health.lastFailureCode,
    window,
  };
}

export type PresentedHealth = ReturnType<typeof presentHealth>;

/**
 * How routing sees a circuit at `now`: closed → usable; open before its probe time (or half-open with a probe in
 * flight) → skipped; open (or a half-open probe that never reported) once next_probe_at passed → one charge may
 * probe it, if it wins the claim.
 */
export function circuitGate(row: HealthRow | undefined, now: Date): 'closed' | 'open' | 'probe_due' {
  if (!row || row.state === 'closed') return 'closed';
  if (row.nextProbeAt && row.nextProbeAt.getTime() <= now.getTime()) return 'probe_due';
  return 'open';
}

/**
 * Connector health over its repository (db/repositories/connector-health.repository.ts, which holds the SQL): the
 * circuits and sliding windows of connectors as the API presents them and routing orders them, and a circuit's
 * opening or closing recorded (activity log + event). The attempt's own statement keeps the failure counter.
 */
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
