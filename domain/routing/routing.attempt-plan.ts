/**
 * The charge's routing decision, made inside the planning activity so the workflow history records it
 * (replay-safe: workflow code never reads health, windows or settings). It is the engine's plan, with
 * - open circuits skipped (circuit_open) and a due half-open probe claimed by exactly one charge (claimProbes),
 * - the profile's opt-in approval-rate ordering (below) over the sliding window,
 * - the merchant's decline table (routing.load.ts) as the cascade policy,
 * - one mode per plan: a customer on a test clock makes a test charge, else the plan's first connector decides
 *   (routing.evaluate.ts); connectors of the other mode are skipped (test_mode_mismatch),
 * and an explanation stored on the transaction (GET /transactions/:id/routing).
 */
import { randomInt } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { CascadePolicy, PlannedAttempt } from '../../workflows/lib/transaction-types';
import type { ChargeAttributes } from './routing.evaluate';
import { NoActiveRoutingProfileError, cascadePolicyOf, claimProbes, readRouting, routeOf } from './routing.load';
import { readWindows } from '../connectors/connector-health';
import type { WindowCounts } from '../connectors/connector-health';

export interface RoutingDecision {
  profile_id: string | null;
  profile_version: number | null;
  optimize: 'none' | 'approval_rate';
  /** The connectors in the order they are tried. */
  attempts: Array<{
    connector_id: string;
    provider_slug: string;
    node_id: string | null;
    reason: 'matched' | 'fallback' | 'default';
    /** This charge probes the connector's half-open circuit. */
    probe: boolean;
    /** The smoothed approval rate the ordering used (optimize approval_rate only). */
    approval_score: number | null;
    /** The charge asks this provider to authenticate the card (3-D Secure; the node's require_3ds). */
    three_ds_requested?: boolean;
  }>;
  /**
   * Connectors of the profile left out, and why (inactive, circuit_open, test_mode_mismatch, unsupported_*,
   * three_ds_unsupported, unknown_connector).
   */
  skipped: Array<{ connector_id: string; node_id: string | null; reason: string }>;
  /** The connector exploration moved to the front (optimize approval_rate only). */
  explored_connector_id: string | null;
  decided_at: string;
}

/** The planned attempts a stored decision names (a retried planning step re-uses the first try's decision). */
export const attemptsOf = (decision: RoutingDecision): PlannedAttempt[] =>
  decision.attempts.map((attempt) => ({
    connectorId: attempt.connector_id,
    nodeId: attempt.node_id,
    providerSlug: attempt.provider_slug,
    ...(attempt.three_ds_requested ? { threeDs: true } : {}),
  }));

export interface AttemptPlan {
  profileId: string | null;
  /**
   * The charge's mode, what its transaction's livemode records: the plan's (a customer on a test clock makes it
   * test); live when no connector decided it (no profile, nothing eligible), as the key that asked is live.
   */
  livemode: boolean;
  attempts: PlannedAttempt[];
  cascade: CascadePolicy | null;
  decision: RoutingDecision;
}

const uniform = () => randomInt(0, 1_000_000) / 1_000_000;

export async function planAttempts(
  em: EntityManager,
  merchantId: string,
  charge: ChargeAttributes,
  {
    customerId = null,
    draws = { explore: uniform(), pick: uniform() },
  }: { customerId?: string | null; draws?: OptimizeDraws } = {},
): Promise<AttemptPlan> {
  const { input, settings, customerOnTestClock } = await readRouting(
    em,
    merchantId,
    { paymentMethod: charge.paymentMethod },
    customerId,
  );
  const cascade = cascadePolicyOf(settings);
  let route: ReturnType<typeof routeOf>;
  try {
    route = routeOf(input, merchantId, customerOnTestClock ? { ...charge, mode: 'test' } : charge);
  } catch (error) {
    if (!(error instanceof NoActiveRoutingProfileError)) throw error;
    return {
      profileId: null,
      livemode: !customerOnTestClock,
      attempts: [],
      cascade,
      decision: {
        profile_id: null,
        profile_version: null,
        optimize: 'none',
        attempts: [],
        skipped: [],
        explored_connector_id: null,
        decided_at: new Date().toISOString(),
      },
    };
  }
  const optimize = route.input.profile.optimize ?? 'none';
  const plan = await claimProbes(em, route.plan);
  let ordered = plan.attempts;
  let scores: Record<string, number> = {};
  let explored: string | null = null;
  if (optimize === 'approval_rate' && ordered.length > 1) {
    const windows = await readWindows(
      em,
      ordered.map((attempt) => attempt.connectorId),
    );
    ({ attempts: ordered, scores, explored } = orderByApprovalRate(ordered, windows, draws));
  }
  return {
    profileId: route.profileId,
    livemode: plan.mode !== 'test',
    attempts: ordered.map((attempt) => ({
      connectorId: attempt.connectorId,
      nodeId: attempt.nodeId,
      providerSlug: route.providerSlugs.get(attempt.connectorId) ?? 'unknown',
      ...(attempt.threeDs ? { threeDs: true } : {}),
    })),
    cascade,
    decision: {
      profile_id: route.profileId,
      profile_version: route.profileVersion,
      optimize,
      attempts: ordered.map((attempt) => ({
        connector_id: attempt.connectorId,
        provider_slug: route.providerSlugs.get(attempt.connectorId) ?? 'unknown',
        node_id: attempt.nodeId,
        reason: attempt.reason,
        probe: attempt.probe === true,
        approval_score: scores[attempt.connectorId] ?? null,
        three_ds_requested: attempt.threeDs === true,
      })),
      skipped: plan.skipped.map((skip) => ({
        connector_id: skip.connectorId,
        node_id: skip.nodeId,
        reason: skip.reason,
      })),
      explored_connector_id: explored,
      decided_at: new Date().toISOString(),
    },
  };
}

/**
 * Approval-rate ordering (opt-in per routing profile: optimize "approval_rate"). Pure: the windows and the
 * draws are inputs, so the planning activity's decision (recorded in the workflow history) is reproducible in tests.
 *
 * Each eligible connector scores (approved + 1) / (attempts + 2) over the sliding window — Laplace smoothing, so a
 * connector without recent traffic scores 0.5 rather than 0 or 1 and two lucky attempts do not outrank a hundred
 * good ones. The plan is sorted by score, best first; ties keep the rules' order. With probability
 * EXPLORATION_SHARE one of the other connectors is moved to the front instead, so a connector that recovers (or
 * has no traffic yet) keeps getting a share of first attempts and its window can show it.
 */
export const EXPLORATION_SHARE = 0.1;

export interface OptimizeDraws {
  /** Uniform in [0, 1): below EXPLORATION_SHARE, this charge explores. */
  explore: number;
  /** Uniform in [0, 1): which of the other connectors leads when exploring. */
  pick: number;
}

export interface Optimized<T> {
  attempts: T[];
  /** The smoothed score of each connector, by id (shown on the transaction's routing explanation). */
  scores: Record<string, number>;
  /** The connector moved to the front by exploration; null when the order is by score. */
  explored: string | null;
}

export const smoothedApprovalRate = (window: WindowCounts | undefined) =>
  Math.round((((window?.approved ?? 0) + 1) / ((window?.attempts ?? 0) + 2)) * 10_000) / 10_000;

export function orderByApprovalRate<T extends { connectorId: string }>(
  attempts: readonly T[],
  windows: ReadonlyMap<string, WindowCounts>,
  draws: OptimizeDraws,
  explorationShare = EXPLORATION_SHARE,
): Optimized<T> {
  const scores: Record<string, number> = {};
  for (const attempt of attempts) scores[attempt.connectorId] = smoothedApprovalRate(windows.get(attempt.connectorId));
  const sorted = attempts
    .map((attempt, index) => ({ attempt, index }))
    .sort((a, b) => scores[b.attempt.connectorId] - scores[a.attempt.connectorId] || a.index - b.index)
    .map(({ attempt }) => attempt);
  if (sorted.length < 2 || draws.explore >= explorationShare) return { attempts: sorted, scores, explored: null };
  const others = sorted.length - 1;
  const chosen = 1 + Math.min(others - 1, Math.floor(draws.pick * others));
  const [lead] = sorted.splice(chosen, 1);
  return { attempts: [lead, ...sorted], scores, explored: lead.connectorId };
}
