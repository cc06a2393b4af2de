import { Migration20261121000000_foundation } from './Migration20261121000000_foundation';
import { Migration20261121010000_catalog } from './Migration20261121010000_catalog';
import { Migration20261121020000_merchants_connectors_routing } from './Migration20261121020000_merchants_connectors_routing';
import { Migration20261121060000_events_webhooks } from './Migration20261121060000_events_webhooks';
import { Migration20261121070000_vault_instruments_sessions } from './Migration20261121070000_vault_instruments_sessions';
import { Migration20261121080000_transactions_orders } from './Migration20261121080000_transactions_orders';
import { Migration20261201000000_request_phases } from './Migration20261201000000_request_phases';
import { Migration20261210000000_dashboard_identity } from './Migration20261210000000_dashboard_identity';
import { Migration20261210010000_mail_outbox } from './Migration20261210010000_mail_outbox';
import { Migration20261215000000_provider_webhook_receipts } from './Migration20261215000000_provider_webhook_receipts';
import { Migration20261216000000_subscriptions } from './Migration20261216000000_subscriptions';
import { Migration20261217000000_attempt_network_transaction_id } from './Migration20261217000000_attempt_network_transaction_id';
import { Migration20261223000000_auth_change_notifications } from './Migration20261223000000_auth_change_notifications';
import { Migration20261223010000_events_fan_out_lease } from './Migration20261223010000_events_fan_out_lease';
import { Migration20261225000000_subscription_quantity } from './Migration20261225000000_subscription_quantity';
import { Migration20261225100000_session_revocation_notifications } from './Migration20261225100000_session_revocation_notifications';
import { Migration20261225110000_api_key_lifecycle } from './Migration20261225110000_api_key_lifecycle';
import { Migration20261225120000_checkout_customer_binding } from './Migration20261225120000_checkout_customer_binding';
import { Migration20261225000000_transaction_failure_reason } from './Migration20261225000000_transaction_failure_reason';
import { Migration20261226000000_test_clocks } from './Migration20261226000000_test_clocks';
import { Migration20261229000000_enrolment_tokens } from './Migration20261229000000_enrolment_tokens';
import { Migration20261230000000_refund_announcements } from './Migration20261230000000_refund_announcements';
import { Migration20261228000000_connector_health } from './Migration20261228000000_connector_health';
import { Migration20261232000000_payment_operation_actors } from './Migration20261232000000_payment_operation_actors';
import { Migration20261238000000_overview_indexes } from './Migration20261238000000_overview_indexes';
import { Migration20261240000000_order_history_sequence } from './Migration20261240000000_order_history_sequence';
import { Migration20261241000000_attempt_webhook_verdict } from './Migration20261241000000_attempt_webhook_verdict';
import { Migration20261242000000_attempt_late_declines } from './Migration20261242000000_attempt_late_declines';
import { Migration20261242100000_event_sequence } from './Migration20261242100000_event_sequence';
import { Migration20261243000000_checkout_paying_transaction } from './Migration20261243000000_checkout_paying_transaction';
import { Migration20261243100000_attempt_give_back } from './Migration20261243100000_attempt_give_back';
import { Migration20261243500000_transaction_operation_verdict } from './Migration20261243500000_transaction_operation_verdict';
import { Migration20261244500000_test_clock_start_time } from './Migration20261244500000_test_clock_start_time';
import { Migration20261245000000_api_key_creator } from './Migration20261245000000_api_key_creator';
import { Migration20261246700000_livemode } from './Migration20261246700000_livemode';
import { Migration20261247100000_first_day_product_provider_code } from './Migration20261247100000_first_day_product_provider_code';
import { Migration20261247300000_three_ds } from './Migration20261247300000_three_ds';
import { Migration20261248100000_observability_event_traceparent } from './Migration20261248100000_observability_event_traceparent';
import { Migration20261248200000_first_day_save_renewal_failures } from './Migration20261248200000_first_day_save_renewal_failures';
import { Migration20261248300000_webhook_deliveries_retrying_idx } from './Migration20261248300000_webhook_deliveries_retrying_idx';
import { Migration20261249100000_setup_checkout_mode } from './Migration20261249100000_setup_checkout_mode';
import { Migration20261249410000_checkout_setup_redirect_urls } from './Migration20261249410000_checkout_setup_redirect_urls';
import { Migration20261250710000_one_delivery_drop_fan_out_lease } from './Migration20261250710000_one_delivery_drop_fan_out_lease';

/** Listed explicitly (no file globbing) so the same list works under tsx, in tests and in a bundle. */
export const MIGRATIONS = [
  { name: 'Migration20261121000000_foundation', class: Migration20261121000000_foundation },
  { name: 'Migration20261121010000_catalog', class: Migration20261121010000_catalog },
  {
    name: 'Migration20261121020000_merchants_connectors_routing',
    class: Migration20261121020000_merchants_connectors_routing,
  },
  { name: 'Migration20261121060000_events_webhooks', class: Migration20261121060000_events_webhooks },
  {
    name: 'Migration20261121070000_vault_instruments_sessions',
    class: Migration20261121070000_vault_instruments_sessions,
  },
  { name: 'Migration20261121080000_transactions_orders', class: Migration20261121080000_transactions_orders },
  { name: 'Migration20261201000000_request_phases', class: Migration20261201000000_request_phases },
  { name: 'Migration20261210000000_dashboard_identity', class: Migration20261210000000_dashboard_identity },
  { name: 'Migration20261210010000_mail_outbox', class: Migration20261210010000_mail_outbox },
  {
    name: 'Migration20261215000000_provider_webhook_receipts',
    class: Migration20261215000000_provider_webhook_receipts,
  },
  { name: 'Migration20261216000000_subscriptions', class: Migration20261216000000_subscriptions },
  {
    name: 'Migration20261217000000_attempt_network_transaction_id',
    class: Migration20261217000000_attempt_network_transaction_id,
  },
  {
    name: 'Migration20261223000000_auth_change_notifications',
    class: Migration20261223000000_auth_change_notifications,
  },
  { name: 'Migration20261223010000_events_fan_out_lease', class: Migration20261223010000_events_fan_out_lease },
  { name: 'Migration20261225000000_subscription_quantity', class: Migration20261225000000_subscription_quantity },
  {
    name: 'Migration20261225100000_session_revocation_notifications',
    class: Migration20261225100000_session_revocation_notifications,
  },
  { name: 'Migration20261225110000_api_key_lifecycle', class: Migration20261225110000_api_key_lifecycle },
  {
    name: 'Migration20261225120000_checkout_customer_binding',
    class: Migration20261225120000_checkout_customer_binding,
  },
  {
    name: 'Migration20261225000000_transaction_failure_reason',
    class: Migration20261225000000_transaction_failure_reason,
  },
  { name: 'Migration20261226000000_test_clocks', class: Migration20261226000000_test_clocks },
  { name: 'Migration20261229000000_enrolment_tokens', class: Migration20261229000000_enrolment_tokens },
  {
    name: 'Migration20261228000000_connector_health',
    class: Migration20261228000000_connector_health,
  },
  {
    name: 'Migration20261230000000_refund_announcements',
    class: Migration20261230000000_refund_announcements,
  },
  {
    name: 'Migration20261232000000_payment_operation_actors',
    class: Migration20261232000000_payment_operation_actors,
  },
  { name: 'Migration20261238000000_overview_indexes', class: Migration20261238000000_overview_indexes },
  {
    name: 'Migration20261240000000_order_history_sequence',
    class: Migration20261240000000_order_history_sequence,
  },
  {
    name: 'Migration20261241000000_attempt_webhook_verdict',
    class: Migration20261241000000_attempt_webhook_verdict,
  },
  {
    name: 'Migration20261242000000_attempt_late_declines',
    class: Migration20261242000000_attempt_late_declines,
  },
  { name: 'Migration20261242100000_event_sequence', class: Migration20261242100000_event_sequence },
  {
    name: 'Migration20261243000000_checkout_paying_transaction',
    class: Migration20261243000000_checkout_paying_transaction,
  },
  { name: 'Migration20261243100000_attempt_give_back', class: Migration20261243100000_attempt_give_back },
  {
    name: 'Migration20261243500000_transaction_operation_verdict',
    class: Migration20261243500000_transaction_operation_verdict,
  },
  { name: 'Migration20261244500000_test_clock_start_time', class: Migration20261244500000_test_clock_start_time },
  { name: 'Migration20261245000000_api_key_creator', class: Migration20261245000000_api_key_creator },
  { name: 'Migration20261246700000_livemode', class: Migration20261246700000_livemode },
  {
    name: 'Migration20261247100000_first_day_product_provider_code',
    class: Migration20261247100000_first_day_product_provider_code,
  },
  { name: 'Migration20261247300000_three_ds', class: Migration20261247300000_three_ds },
  {
    name: 'Migration20261248100000_observability_event_traceparent',
    class: Migration20261248100000_observability_event_traceparent,
  },
  {
    name: 'Migration20261248200000_first_day_save_renewal_failures',
    class: Migration20261248200000_first_day_save_renewal_failures,
  },
  {
    name: 'Migration20261248300000_webhook_deliveries_retrying_idx',
    class: Migration20261248300000_webhook_deliveries_retrying_idx,
  },
  { name: 'Migration20261249100000_setup_checkout_mode', class: Migration20261249100000_setup_checkout_mode },
  {
    name: 'Migration20261249410000_checkout_setup_redirect_urls',
    class: Migration20261249410000_checkout_setup_redirect_urls,
  },
  {
    name: 'Migration20261250710000_one_delivery_drop_fan_out_lease',
    class: Migration20261250710000_one_delivery_drop_fan_out_lease,
  },
];
