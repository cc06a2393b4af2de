/** Document 2's Product family shape; deleted_at appears only on a soft-deleted record (never on a live one). */
import type { ProductFamily } from '../../../db/entities';

export function presentProductFamily(family: ProductFamily) {
  return {
    id: family.id,
    merchant_id: family.merchantId,
    name: family.name,
    slug: family.slug,
    description: family.description,
    custom_plan_id: family.customPlanId,
    change_charge_behavior: family.changeChargeBehavior,
    created_at: family.createdAt.toISOString(),
    updated_at: family.updatedAt.toISOString(),
    ...(family.deletedAt ? { deleted_at: family.deletedAt.toISOString() } : {}),
  };
}
