/**
 * Names shared by the API, the worker and the workflows: task queues and the custom search attributes an
 * operator filters on in the Temporal UI. Kept free of runtime dependencies so workflow code may import it.
 */
export const TASK_QUEUES = {
  /** Charges, capture/void/refund, card verification, checkout expiry, housekeeping. */
  payments: 'switchyard-payments',
  /**
   * Webhook fan-out and deliveries, on their own queue (and Worker, with its own slots): merchants' slow or
   * hanging endpoints can use up every delivery slot without delaying a charge.
   */
  webhooks: 'switchyard-webhooks',
  /**
   * Clock-driven work: a test clock's advance, the subscriptions of the clock's customers and the renewals they run,
   * on their own queue (and Worker, with few slots): a 1,000-renewal advance waits for its own slots, never for
   * those live charges run in.
   */
  testClocks: 'switchyard-test-clocks',
} as const;

/**
 * Custom search attributes registered on every Temporal namespace the project uses: Keyword, except TransactionId
 * (KeywordList: SQL visibility, the dev server's, allows at most 10 Keyword attributes, and these are 10).
 */
export const SEARCH_ATTRIBUTES = [
  'OrganizationId',
  'MerchantId',
  'CustomerId',
  'PaymentMethod',
  'TransactionId',
  'TransactionStatus',
  'SubscriptionStatus',
  'SubscriptionAttention',
  'TestClockId',
  'EventType',
  'DeliveryStatus',
] as const;

export type SearchAttributeName = (typeof SEARCH_ATTRIBUTES)[number];

/**
 * Typed keys for every search attribute (Keyword), for `typedSearchAttributes` and `upsertSearchAttributes`.
 * The one place the keys are spelled out; the API, activities and workflows all use these.
 */
export const SEARCH_ATTRIBUTE_KEYS = {
  OrganizationId: { name: 'OrganizationId', type: 'KEYWORD' } as const,
  MerchantId: { name: 'MerchantId', type: 'KEYWORD' } as const,
  CustomerId: { name: 'CustomerId', type: 'KEYWORD' } as const,
  PaymentMethod: { name: 'PaymentMethod', type: 'KEYWORD' } as const,
  /**
   * The transaction a charge, its settlement and its captures, voids and refunds work on (one value; a list
   * only for the limit above): `TransactionId = "tx_…"` lists them all, and the newest one's TransactionStatus is the status after the last workflow step
   * (docs/architecture.md, "Finding a transaction in the Temporal UI").
   */
  TransactionId: { name: 'TransactionId', type: 'KEYWORD_LIST' } as const,
  TransactionStatus: { name: 'TransactionStatus', type: 'KEYWORD' } as const,
  SubscriptionStatus: { name: 'SubscriptionStatus', type: 'KEYWORD' } as const,
  /**
   * Set while a subscription needs an operator's eye: `retrying` (a step has been retrying for over ten minutes,
   * e.g. the database is down), `failed` (a step failed for good; the workflow tries again hourly), `settling`
   * (a renewal charge awaits the provider's verdict). Absent otherwise.
   */
  SubscriptionAttention: { name: 'SubscriptionAttention', type: 'KEYWORD' } as const,
  /** The test clock a subscription runs on: absent for the subscriptions on real time. */
  TestClockId: { name: 'TestClockId', type: 'KEYWORD' } as const,
  EventType: { name: 'EventType', type: 'KEYWORD' } as const,
  DeliveryStatus: { name: 'DeliveryStatus', type: 'KEYWORD' } as const,
} satisfies { [N in SearchAttributeName]: { name: N; type: 'KEYWORD' | 'KEYWORD_LIST' } };

/** How a namespace registers `name` (IndexedValueType names, without the prefix). */
export const searchAttributeIndexType = (name: SearchAttributeName) => SEARCH_ATTRIBUTE_KEYS[name].type;
