/** Document 2's Product shape; metadata is returned exactly as stored. */
import type { Product } from '../../../db/entities';

export function presentProduct(product: Product) {
  return {
    id: product.id,
    merchant_id: product.merchantId,
    product_family_id: product.productFamilyId,
    name: product.name,
    description: product.description,
    type: product.type,
    tier_order: product.tierOrder,
    status: product.status,
    metadata: product.metadata,
    created_at: product.createdAt.toISOString(),
    updated_at: product.updatedAt.toISOString(),
  };
}
