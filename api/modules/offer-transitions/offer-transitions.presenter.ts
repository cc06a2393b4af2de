/** Document 2's Offer transition shape, and the effective-behaviour answer. */
import type { OfferTransition } from '../../../db/entities';
import type { EffectiveBehaviorResult } from './offer-transitions.service';

export function presentOfferTransition(transition: OfferTransition) {
  return {
    id: transition.id,
    from_offer_id: transition.fromOfferId,
    to_offer_id: transition.toOfferId,
    change_charge_behavior: transition.changeChargeBehavior,
    is_active: transition.isActive,
    created_at: transition.createdAt.toISOString(),
    updated_at: transition.updatedAt.toISOString(),
  };
}

export function presentEffectiveBehavior(result: EffectiveBehaviorResult) {
  return {
    from_offer_id: result.fromOfferId,
    to_offer_id: result.toOfferId,
    change_charge_behavior: result.behavior,
    source: result.source,
    offer_transition_id: result.transitionId,
    product_family_id: result.productFamilyId,
  };
}
