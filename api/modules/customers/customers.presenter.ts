/** Document 2's Customer shape. document_number and billing_address are never read here, so never leak. */
import type { Customer } from '../../../db/entities';

export function presentCustomer(customer: Customer) {
  return {
    id: customer.id,
    merchant_id: customer.merchantId,
    email: customer.email,
    name: customer.name,
    phone: customer.phone,
    document_type: customer.documentType,
    metadata: customer.metadata,
    created_at: customer.createdAt.toISOString(),
    updated_at: customer.updatedAt.toISOString(),
  };
}

export function presentCustomerReceipt(customer: Customer) {
  return {
    id: customer.id,
    merchant_id: customer.merchantId,
    email: customer.email,
    name: customer.name,
    created_at: customer.createdAt.toISOString(),
  };
}
