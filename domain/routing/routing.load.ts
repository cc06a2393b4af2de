/**
 * Loading what the engine needs from the database, shared by the simulate endpoint, card verification and the
 * charge workflow's planning activity, so all evaluate exactly the same program against exactly the same connector
 * states — read in one statement (db/repositories/routing.repository.ts) with the merchant's routing settings.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { RoutingProfile } from '../../db/entities';
import {
  evaluate,
  type ChargeAttributes,
  type TransactionPaymentMethod,
  type ConnectorState,
  type RoutingPlan,
  type RoutingProgram,
} from './routing.evaluate';
import { buildProgram, connectorState } from './routing.program';
import { circuitGate, healthRowOf } from '../connectors/connector-health';
import { claimProbe } from '../../db/repositories/connector-health.repository';
import {
  readRoutingRows,
  saveRoutingSettings,
  storedRoutingSettings,
  type StoredRoutingSettings,
} from '../../db/repositories/routing.repository';
import {
  DECLINE_CATEGORIES,
  RETRYABLE_OUTCOMES,
  type CascadePolicy,
  type DeclineAction,
  type DeclineCategory,
} from '../../workflows/lib/transaction-types';

// ── Routing settings ─────────────────────────────────────────────────────────────────────────────────────────

/**
 * A merchant's routing settings: the decline table — which decline categories (and, optionally, raw
 * provider codes) move the charge on to the next connector and which stop it. Absent rows and unmapped entries
 * keep today's behaviour (RETRYABLE_OUTCOMES: soft declines, processing and network errors move on; hard declines
 * stop; an unknown outcome always stops).
 */
export const defaultDeclineActions = (): Record<DeclineCategory, DeclineAction> =>
  Object.fromEntries(
    DECLINE_CATEGORIES.map((category) => [
      category,
      RETRYABLE_OUTCOMES.has(category) ? 'retry_next_connector' : 'stop',
    ]),
  ) as Record<DeclineCategory, DeclineAction>;

export interface RoutingSettings {
  /** Every category with its action (the stored ones over the defaults). */
  declineActions: Record<DeclineCategory, DeclineAction>;
  /** Raw provider codes with their own action (win over the code's category). */
  codeActions: Record<string, DeclineAction>;
  /** When the merchant last saved them; null: never (the defaults). */
  updatedAt: Date | null;
}

export async function readRoutingSettings(em: EntityManager, merchantId: string): Promise<RoutingSettings> {
  return routingSettingsOf(await storedRoutingSettings(em, merchantId));
}

/** A merchant's settings from its stored row (none: the defaults). */
export const routingSettingsOf = (row: StoredRoutingSettings | null): RoutingSettings => ({
  declineActions: { ...defaultDeclineActions(), ...(row?.decline_actions ?? {}) },
  codeActions: { ...(row?.code_actions ?? {}) },
  updatedAt: row ? new Date(row.updated_at) : null,
});

export async function writeRoutingSettings(
  em: EntityManager,
  merchantId: string,
  settings: Pick<RoutingSettings, 'declineActions' | 'codeActions'>,
): Promise<void> {
  await saveRoutingSettings(em, merchantId, settings);
}

/** The policy the charge carries in its history: null when the merchant never changed the defaults. */
export function cascadePolicyOf(settings: RoutingSettings): CascadePolicy | null {
  if (!settings.updatedAt) return null;
  return { categories: settings.declineActions, codes: settings.codeActions };
}

// ── The engine's input ───────────────────────────────────────────────────────────────────────────────────────

export interface RoutingPlanInput {
  profile: RoutingProfile;
  program: RoutingProgram;
  /** Every connector the program names (actions and the default); a deleted one is simply absent. */
  connectors: Map<string, ConnectorState>;
  /** Display names for the same connectors (simulate shows them). */
  connectorNames: Map<string, string>;
  /** Their providers' slugs (the charge's planned attempts carry them). */
  providerSlugs: Map<string, string>;
}

export type ProfileSelector = { profileId: string } | { paymentMethod: TransactionPaymentMethod };

/** No active profile routes this payment method (neither the exact method nor the `*` catch-all). */
export class NoActiveRoutingProfileError extends Error {
  readonly code = 'NO_ACTIVE_ROUTING_PROFILE';
  constructor(
    readonly merchantId: string,
    readonly paymentMethod: TransactionPaymentMethod,
  ) {
    super(
      `Merchant ${merchantId} has no active routing profile for ${paymentMethod} and no active catch-all (*) profile`,
    );
    this.name = 'NoActiveRoutingProfileError';
  }
}

export interface RoutingRead {
  /** null when the profile doesn't exist for this merchant, or (by payment method) when none is active. */
  input: RoutingPlanInput | null;
  /** The merchant's decline table (the charge's cascade policy), read in the same statement. */
  settings: RoutingSettings;
  /** The charge's customer is on a test clock, so the charge is a test charge (read in the same statement). */
  customerOnTestClock: boolean;
}

/**
 * The profile, its program, the connectors it names (with circuits), the decline table and whether the charge's
 * customer is on a test clock: one round trip.
 */
export async function readRouting(
  em: EntityManager,
  merchantId: string,
  selector: ProfileSelector,
  customerId: string | null = null,
): Promise<RoutingRead> {
  const rows = await readRoutingRows(em, merchantId, selector, customerId);
  const settings = routingSettingsOf(rows.settings as StoredRoutingSettings | null);
  const { profile, customerOnTestClock } = rows;
  if (!profile) return { input: null, settings, customerOnTestClock };
  const program = buildProgram(profile, rows.nodes);
  const now = new Date();
  return {
    settings,
    customerOnTestClock,
    input: {
      profile,
      program,
      connectors: new Map(
        rows.connectors.map((row) => [
          row.id,
          {
            ...connectorState(row, row.provider ?? undefined),
            circuit: circuitGate(row.health ? healthRowOf(row.health) : undefined, now),
          },
        ]),
      ),
      connectorNames: new Map(rows.connectors.map((row) => [row.id, row.name])),
      providerSlugs: new Map(rows.connectors.map((row) => [row.id, row.providerSlug])),
    },
  };
}

export async function loadRoutingPlanInput(
  em: EntityManager,
  merchantId: string,
  selector: ProfileSelector,
): Promise<RoutingPlanInput | null> {
  return (await readRouting(em, merchantId, selector)).input;
}

export interface PlannedRoute {
  profileId: string;
  profileVersion: number;
  plan: RoutingPlan;
  /** Each planned connector's provider (read with the plan, so the caller need not read the connectors again). */
  providerSlugs: ReadonlyMap<string, string>;
  /** What the plan was evaluated from (the charge planner reads the profile's optimize setting). */
  input: RoutingPlanInput;
}

/** The plan for a charge: the active profile for its payment method (exact, then `*`); none → NoActiveRoutingProfileError. */
export async function planRoute(
  em: EntityManager,
  merchantId: string,
  charge: ChargeAttributes,
): Promise<PlannedRoute> {
  const { input } = await readRouting(em, merchantId, { paymentMethod: charge.paymentMethod });
  return routeOf(input, merchantId, charge);
}

/** The engine's plan over what readRouting read; no profile → NoActiveRoutingProfileError. */
export function routeOf(input: RoutingPlanInput | null, merchantId: string, charge: ChargeAttributes): PlannedRoute {
  if (!input) throw new NoActiveRoutingProfileError(merchantId, charge.paymentMethod);
  return {
    profileId: input.profile.id,
    profileVersion: input.profile.version,
    plan: evaluate(input.program, input.connectors, charge),
    providerSlugs: input.providerSlugs,
    input,
  };
}

/**
 * A planned attempt on an open circuit whose cool-down passed is its half-open probe: only the planner that claims
 * it (atomically, in the database) keeps it; for every other charge the connector is skipped as circuit_open.
 */
export async function claimProbes(em: EntityManager, plan: RoutingPlan): Promise<RoutingPlan> {
  if (!plan.attempts.some((attempt) => attempt.probe)) return plan;
  const attempts: RoutingPlan['attempts'] = [];
  const skipped = [...plan.skipped];
  for (const attempt of plan.attempts) {
    if (!attempt.probe || (await claimProbe(em, attempt.connectorId))) attempts.push(attempt);
    else skipped.push({ connectorId: attempt.connectorId, nodeId: attempt.nodeId, reason: 'circuit_open' });
  }
  return { ...plan, attempts, skipped };
}
