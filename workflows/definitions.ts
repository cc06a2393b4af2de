/**
 * Names shared by the API, the worker and the workflows: task queues and the custom search attributes an
 * operator filters on in the Temporal UI. Kept free of runtime dependencies so workflow code may import it.
 */
export const TASK_QUEUES = {
  payments: 'switchyard-payments',
} as const;

/** Custom search attributes (all Keyword) registered on every Temporal namespace the project uses. */
export const SEARCH_ATTRIBUTES = [
  'OrganizationId',
  'MerchantId',
  'CustomerId',
  'PaymentMethod',
  'TransactionStatus',
  'SubscriptionStatus',
  'EventType',
  'DeliveryStatus',
] as const;

export type SearchAttributeName = (typeof SEARCH_ATTRIBUTES)[number];
