/** Document 2's Offer price shape. */
import type { OfferPrice } from '../../../db/entities';

export function presentOfferPrice(price: OfferPrice) {
  return {
    id: price.id,
    offer_id: price.offerId,
    currency: price.currency,
    amount: price.amount,
    first_charge_amount: price.firstChargeAmount,
    is_default: price.isDefault,
    created_at: price.createdAt.toISOString(),
    updated_at: price.updatedAt.toISOString(),
  };
}
