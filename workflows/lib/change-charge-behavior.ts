/**
 * Which change_charge_behavior applies when a subscription moves between two offers (Document 2, "Offer
 * transition"). Pure and deterministic: the API's effective-behaviour endpoint and the subscription workflow
 * (inside the Temporal sandbox) call this one function, so they can never disagree. No imports on purpose.
 */

export const CHANGE_CHARGE_BEHAVIOR_VALUES = ['next_renew', 'prorated', 'override'] as const;
export type ChangeChargeBehaviorValue = (typeof CHANGE_CHARGE_BEHAVIOR_VALUES)[number];

/** The part of an offer transition that matters here; null when no transition exists for the exact pair. */
export interface TransitionRule {
  isActive: boolean;
  /** null = inherit the family's behaviour. */
  changeChargeBehavior: ChangeChargeBehaviorValue | null;
}

export interface EffectiveBehaviorInput {
  transition: TransitionRule | null;
  /** The product family's change_charge_behavior (default next_renew on the family). */
  familyBehavior: ChangeChargeBehaviorValue;
}

export interface EffectiveBehavior {
  behavior: ChangeChargeBehaviorValue;
  /** Where the behaviour came from: the pair's transition, or the family default. */
  source: 'transition' | 'family';
}

/**
 * An active transition with a non-null behaviour wins; otherwise (no transition, an inactive one, or one
 * with a null behaviour) the family's behaviour applies.
 */
export function effectiveChangeChargeBehavior({
  transition,
  familyBehavior,
}: EffectiveBehaviorInput): EffectiveBehavior {
  if (transition && transition.isActive && transition.changeChargeBehavior !== null) {
    return { behavior: transition.changeChargeBehavior, source: 'transition' };
  }
  return { behavior: familyBehavior, source: 'family' };
}
