/** Document 3's Routing profile shape (default_merchant_connector_id is never null here). */
import type { RoutingProfile } from '../../../db/entities';

export function presentProfile(profile: RoutingProfile) {
  return {
    id: profile.id,
    merchant_id: profile.merchantId,
    name: profile.name,
    is_active: profile.isActive,
    version: profile.version,
    payment_method: profile.paymentMethod,
    default_merchant_connector_id: profile.defaultMerchantConnectorId,
    optimize: profile.optimize ?? 'none',
    created_at: profile.createdAt.toISOString(),
    updated_at: profile.updatedAt.toISOString(),
  };
}
