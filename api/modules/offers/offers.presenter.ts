/** Document 2's Offer shape: `prices` on create and get-by-id, absent in list items. */
import type { Offer, OfferPrice } from '../../../db/entities';
import { presentOfferPrice } from '../offer-prices/offer-prices.presenter';

function offerFields(offer: Offer) {
  return {
    id: offer.id,
    product_id: offer.productId,
    name: offer.name,
    slug: offer.slug,
    description: offer.description,
    billing_cycle: offer.billingCycle,
    custom_billing_days: offer.customBillingDays,
    cycle_limit: offer.cycleLimit,
    free_trial: offer.freeTrial,
    trial_days: offer.trialDays,
    setup_charge: offer.setupCharge,
    renew_after_cycle_limit: offer.renewAfterCycleLimit,
    renewal_offer_id: offer.renewalOfferId,
    is_default: offer.isDefault,
    status: offer.status,
    created_at: offer.createdAt.toISOString(),
    updated_at: offer.updatedAt.toISOString(),
  };
}

export type OfferSummaryJson = ReturnType<typeof offerFields>;
export type OfferJson = OfferSummaryJson & { prices: ReturnType<typeof presentOfferPrice>[] };

/**
 * The offer object. Pass the offer's live prices (in display order: see sortPrices) to include `prices`;
 * pass undefined for a list item, which has no `prices` key at all.
 */
export function presentOffer(offer: Offer, prices: OfferPrice[]): OfferJson;
export function presentOffer(offer: Offer, prices: undefined): OfferSummaryJson;
export function presentOffer(offer: Offer, prices: OfferPrice[] | undefined): OfferJson | OfferSummaryJson;
export function presentOffer(offer: Offer, prices: OfferPrice[] | undefined): OfferJson | OfferSummaryJson {
  const fields = offerFields(offer);
  return prices === undefined ? fields : { ...fields, prices: prices.map(presentOfferPrice) };
}
