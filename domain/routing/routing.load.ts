/**
 * Loading what the engine needs from the database, shared by the simulate endpoint and the charge workflow's
 * planning activity, so both evaluate exactly the same program against exactly the same connector states.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  MerchantConnectorSchema,
  PaymentProviderSchema,
  RoutingNodeSchema,
  RoutingProfileSchema,
  type RoutingProfile,
} from '../../db/entities';
import {
  evaluate,
  walk,
  type ChargeAttributes,
  type ChargePaymentMethod,
  type ConnectorState,
  type RoutingPlan,
  type RoutingProgram,
} from './routing.evaluate';
import { buildProgram, connectorState } from './routing.program';
import { circuitGate } from '../connectors/connector-health';
import { readCircuits } from '../connectors/connector-health.repository';
import { claimProbe } from '../../db/repositories/connector-health.repository';

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

export type ProfileSelector = { profileId: string } | { paymentMethod: ChargePaymentMethod };

/** No active profile routes this payment method (neither the exact method nor the `*` catch-all). */
export class NoActiveRoutingProfileError extends Error {
  readonly code = 'NO_ACTIVE_ROUTING_PROFILE';
  constructor(
    readonly merchantId: string,
    readonly paymentMethod: ChargePaymentMethod,
  ) {
    super(
      `Merchant ${merchantId} has no active routing profile for ${paymentMethod} and no active catch-all (*) profile`,
    );
    this.name = 'NoActiveRoutingProfileError';
  }
}

/** The active profile for a method: the exact method first, then the `*` catch-all. */
export async function findActiveProfile(
  em: EntityManager,
  merchantId: string,
  paymentMethod: ChargePaymentMethod,
): Promise<RoutingProfile | null> {
  const candidates = await em.find(RoutingProfileSchema, {
    merchantId,
    isActive: true,
    paymentMethod: { $in: [paymentMethod, '*'] },
  });
  return (
    candidates.find((profile) => profile.paymentMethod === paymentMethod) ??
    candidates.find((profile) => profile.paymentMethod === '*') ??
    null
  );
}

/** null when the profile doesn't exist for this merchant, or (by payment method) when none is active. */
export async function loadRoutingPlanInput(
  em: EntityManager,
  merchantId: string,
  selector: ProfileSelector,
): Promise<RoutingPlanInput | null> {
  const profile =
    'profileId' in selector
      ? await em.findOne(RoutingProfileSchema, { id: selector.profileId, merchantId })
      : await findActiveProfile(em, merchantId, selector.paymentMethod);
  if (!profile) return null;
  const rows = await em.find(RoutingNodeSchema, { routingProfileId: profile.id });
  const program = buildProgram(profile, rows);
  const ids = new Set<string>([program.defaultConnectorId]);
  for (const node of walk(program.nodes)) if (node.kind === 'action') ids.add(node.connectorId);
  const connectorRows = await em.find(MerchantConnectorSchema, { id: { $in: [...ids] }, merchantId });
  const slugs = [...new Set(connectorRows.map((row) => row.providerSlug))];
  const providers = slugs.length > 0 ? await em.find(PaymentProviderSchema, { slug: { $in: slugs } }) : [];
  const bySlug = new Map(providers.map((provider) => [provider.slug, provider]));
  // Each connector's circuit as of now (a connector that never failed has no row: closed).
  const circuits = await readCircuits(
    em,
    connectorRows.map((row) => row.id),
  );
  const now = new Date();
  return {
    profile,
    program,
    connectors: new Map(
      connectorRows.map((row) => [
        row.id,
        { ...connectorState(row, bySlug.get(row.providerSlug)), circuit: circuitGate(circuits.get(row.id), now) },
      ]),
    ),
    connectorNames: new Map(connectorRows.map((row) => [row.id, row.name])),
    providerSlugs: new Map(connectorRows.map((row) => [row.id, row.providerSlug])),
  };
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
  const input = await loadRoutingPlanInput(em, merchantId, { paymentMethod: charge.paymentMethod });
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
