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
    ...onTestClock(customer),
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
    ...onTestClock(customer),
    created_at: customer.createdAt.toISOString(),
  };
}

/** Only a customer on a test clock shows one (Document 2's shapes stay as they are for everyone else). */
const onTestClock = (customer: Customer) => (customer.testClockId ? { test_clock_id: customer.testClockId } : {});
