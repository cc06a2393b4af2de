import { Migration } from '@mikro-orm/migrations';

/**
 * Test and live apart: transactions, subscriptions, events and webhook deliveries carry livemode, set once when the
 * row is written (a transaction: its charge's mode; a subscription: its first charge's; an event or delivery: its
 * object's). Organizations get the switch that allows test-mode connectors in production (off).
 *
 * Backfill: a transaction takes its connector's mode (the one it was charged on, else the first its plan named),
 * or test when its customer is on a test clock, else live; a subscription takes its first charge's mode (a
 * subscription a cycle limit renewed takes its predecessor's), test when its customer is on a test clock; an event
 * takes its transaction's, subscription's or connector's mode; a delivery its event's. Events about anything else
 * (card verifications) are live. The Overview's covering index gains livemode.
 */
export class Migration20261246700000_livemode extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table transactions add column livemode boolean not null default true;
      alter table subscriptions add column livemode boolean not null default true;
      alter table events add column livemode boolean not null default true;
      alter table webhook_deliveries add column livemode boolean not null default true;
      alter table organizations add column test_connectors_enabled boolean not null default false;

      update transactions t set livemode = false
       where exists (select 1 from customers c where c.id = t.customer_id and c.test_clock_id is not null)
          or coalesce(
               (select c.is_test_mode from merchant_connectors c where c.id = t.connector_id),
               (select c.is_test_mode from merchant_connectors c
                 where c.id = t.routing_decision -> 'attempts' -> 0 ->> 'connector_id'),
               false);
      update subscriptions s set livemode = false
       where exists (select 1 from customers c where c.id = s.customer_id and c.test_clock_id is not null)
          or exists (select 1 from transactions t where t.id = s.origin_transaction_id and not t.livemode);
      update subscriptions s set livemode = false
        from subscriptions o where o.id = s.origin_transaction_id and not o.livemode;
      update events e set livemode = t.livemode from transactions t
       where e.type like 'transaction.%'
         and t.id = coalesce(case when e.data ->> 'id' like 'tx\\_%' then e.data ->> 'id' end, e.data ->> 'transaction_id',
                       e.data ->> 'payment_transaction_id');
      update events e set livemode = s.livemode from subscriptions s
       where e.type like 'subscription.%' and s.id = e.data ->> 'id';
      update events e set livemode = not c.is_test_mode from merchant_connectors c
       where e.type like 'connector.%' and c.id = e.data ->> 'id';
      update webhook_deliveries d set livemode = e.livemode from events e where e.id = d.event_id and not e.livemode;

      drop index transactions_merchant_overview_idx;
      create index transactions_merchant_overview_idx on transactions (merchant_id, created_at)
        include (charge_type, status, currency, connector_id, amount_captured, livemode);
    `);
  }

  override async down(): Promise<void> {
    this.addSql(`
      drop index transactions_merchant_overview_idx;
      create index transactions_merchant_overview_idx on transactions (merchant_id, created_at)
        include (charge_type, status, currency, connector_id, amount_captured);
      alter table transactions drop column livemode;
      alter table subscriptions drop column livemode;
      alter table events drop column livemode;
      alter table webhook_deliveries drop column livemode;
      alter table organizations drop column test_connectors_enabled;
    `);
  }
}
