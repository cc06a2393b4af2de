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
import type { WindowCounts } from '../connectors/connector-health';

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
