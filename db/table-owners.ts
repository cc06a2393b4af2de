/**
 * One owner per table (docs/architecture.md "One way to write"): the repository file that holds the table's raw SQL
 * (`db/repositories/<table-family>.repository.ts`), or, for a table written only through its entities, the module
 * that writes it. test/unit/architecture.test.ts fails when a migration creates a table this map does not name, and
 * when a file under db/ other than the owner writes the table with raw SQL. A new table gets its line here with its
 * migration; raw SQL on an entity-only table moves the owner to the table's repository.
 */
export const TABLE_OWNERS: Readonly<Record<string, string>> = {
  // Raw SQL in a repository (the repository writes the table; its entity may also be written by the module).
  api_keys: 'db/repositories/api-keys.repository.ts',
  card_token_cvcs: 'db/repositories/card-tokens.repository.ts',
  card_tokens: 'db/repositories/card-tokens.repository.ts',
  checkout_sessions: 'db/repositories/checkout-sessions.repository.ts',
  connector_health: 'db/repositories/connector-health.repository.ts',
  enrolment_tokens: 'db/repositories/enrolment-tokens.repository.ts',
  events: 'db/repositories/events.repository.ts',
  idempotency_keys: 'db/repositories/idempotency-keys.repository.ts',
  merchant_routing_settings: 'db/repositories/routing.repository.ts',
  merchant_users: 'db/repositories/merchants.repository.ts',
  merchant_webhook_configs: 'db/repositories/webhooks.repository.ts',
  merchants: 'db/repositories/merchants.repository.ts',
  order_items: 'db/repositories/orders.repository.ts',
  order_status_history: 'db/repositories/orders.repository.ts',
  orders: 'db/repositories/orders.repository.ts',
  password_reset_tokens: 'db/repositories/password-reset-tokens.repository.ts',
  payment_instruments: 'db/repositories/payment-instruments.repository.ts',
  payment_operation_actors: 'db/repositories/payment-operation-actors.repository.ts',
  provider_webhook_events: 'db/repositories/provider-webhook-events.repository.ts',
  provider_webhook_receipts: 'db/repositories/provider-webhook-receipts.repository.ts',
  rate_limit_counters: 'db/repositories/rate-limit-counters.repository.ts',
  refresh_tokens: 'db/repositories/refresh-tokens.repository.ts',
  refunds: 'db/repositories/refunds.repository.ts',
  routing_profiles: 'db/repositories/routing.repository.ts',
  test_clock_renewal_failures: 'db/repositories/test-clocks.repository.ts',
  test_clocks: 'db/repositories/test-clocks.repository.ts',
  transaction_attempts: 'db/repositories/transaction-attempts.repository.ts',
  transactions: 'db/repositories/transactions.repository.ts',
  webhook_deliveries: 'db/repositories/webhooks.repository.ts',

  // Written through entities: the module that owns the table's rules.
  admin_users: 'api/modules/auth',
  browser_sessions: 'api/modules/browser-sessions',
  checkout_events: 'api/modules/checkout-sessions',
  checkout_items: 'api/modules/checkout-sessions',
  customers: 'api/modules/customers',
  mail_outbox: 'domain/mail',
  merchant_activities: 'domain/merchants',
  merchant_connectors: 'api/modules/connectors',
  merchant_members: 'api/modules/merchants',
  offer_prices: 'api/modules/offers',
  offer_transitions: 'api/modules/offer-transitions',
  offers: 'api/modules/offers',
  organization_members: 'domain/tenants',
  organization_users: 'domain/tenants',
  organizations: 'domain/tenants',
  product_families: 'api/modules/product-families',
  products: 'api/modules/products',
  routing_nodes: 'api/modules/routing',
  subscription_transitions: 'domain/subscriptions',
  subscriptions: 'domain/subscriptions',

  // The provider catalog: seeded by its migration, read-only at run time.
  payment_providers: 'db/migrations',
};
