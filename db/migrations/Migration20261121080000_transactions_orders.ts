import { Migration } from '@mikro-orm/migrations';

/**
 * Transactions (with their attempt timeline), orders (items, status history), refunds and the inbound provider
 * webhook dedup table. A customer with payment history can no longer be deleted: the payment_instruments FK
 * moves from cascade to restrict, and transactions/orders reference customers with restrict too.
 */
export class Migration20261121080000_transactions_orders extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table payment_instruments drop constraint payment_instruments_customer_id_fkey;
      alter table payment_instruments add constraint payment_instruments_customer_id_fkey
        foreign key (customer_id) references customers(id) on delete restrict;

      create table orders (
        id text primary key,
        organization_id text not null references organizations(id),
        merchant_id text not null references merchants(id),
        customer_id text references customers(id) on delete restrict,
        external_order_id text,
        checkout_session_id text references checkout_sessions(id),
        order_type text not null check (order_type in ('api', 'checkout', 'renewal', 'trial_setup', 'card_setup')),
        recurrence text not null check (recurrence in ('none', 'initial', 'subsequent', 'unscheduled')),
        total_amount bigint not null check (total_amount >= 0),
        currency text not null check (currency ~ '^[A-Z]{3}$'),
        status text not null check (status in ('pending', 'pre_authorized', 'authorized', 'failed', 'canceled',
          'refund_pending', 'partially_refunded', 'refunded', 'charged_back')),
        metadata jsonb,
        created_at timestamptz(3) not null default now(),
        updated_at timestamptz(3) not null default now()
      );
      create index orders_merchant_idx on orders (merchant_id, created_at desc, id desc);
      create index orders_customer_idx on orders (customer_id);
      create index orders_external_idx on orders (merchant_id, external_order_id);

      create table order_items (
        id uuid primary key,
        order_id text not null references orders(id) on delete cascade,
        product_id text not null,
        offer_id text not null,
        product_name text not null,
        offer_name text not null,
        billing_cycle text,
        cycle_limit integer,
        is_first_charge boolean not null,
        quantity integer not null check (quantity >= 1),
        unit_amount bigint not null check (unit_amount >= 0),
        total_amount bigint not null check (total_amount >= 0),
        currency text not null,
        installments integer check (installments >= 1),
        created_at timestamptz(3) not null default now()
      );
      create index order_items_order_idx on order_items (order_id);

      create table order_status_history (
        id uuid primary key,
        order_id text not null references orders(id) on delete cascade,
        from_status text,
        to_status text not null,
        triggered_by text not null check (triggered_by in ('api', 'system', 'psp_webhook')),
        -- Written by idempotent activities: a retried write finds its key and adds nothing.
        transition_key text not null unique,
        created_at timestamptz(3) not null default now()
      );
      create index order_status_history_order_idx on order_status_history (order_id, created_at);

      create table transactions (
        id text primary key,
        organization_id text not null references organizations(id),
        merchant_id text not null references merchants(id),
        order_id text references orders(id),
        subscription_id text,
        external_order_id text,
        customer_id text references customers(id) on delete restrict,
        payment_instrument_id text references payment_instruments(id),
        card_token_id text,
        checkout_session_id text references checkout_sessions(id),
        amount bigint not null check (amount >= 0),
        amount_authorized bigint not null default 0 check (amount_authorized >= 0),
        amount_captured bigint not null default 0 check (amount_captured >= 0 and amount_captured <= amount_authorized),
        amount_refunded bigint not null default 0 check (amount_refunded >= 0 and amount_refunded <= amount_captured),
        currency text not null check (currency ~ '^[A-Z]{3}$'),
        payment_method text not null check (payment_method in ('credit_card', 'debit_card', 'pix', 'boleto', 'wallet')),
        wallet_type text,
        charge_type text not null check (charge_type in ('payment', 'setup_verification')),
        country text not null check (country ~ '^[A-Z]{2}$'),
        status text not null check (status in ('pending', 'pre_authorized', 'authorized', 'failed', 'canceled', 'voided',
          'charged_back', 'refund_pending', 'capture_pending', 'refunded', 'partially_refunded', 'expired')),
        capture boolean not null,
        risk_score integer check (risk_score between 0 and 100),
        installments integer check (installments between 1 and 24),
        routing_profile_id text,
        applied_routing_rule_id text,
        -- The connector and provider payment of the successful (or pending) attempt: where capture/void/refund go.
        connector_id text,
        provider_reference text,
        payment_instructions jsonb,
        metadata jsonb,
        workflow_id text not null,
        expires_at timestamptz(3),
        created_at timestamptz(3) not null default now(),
        updated_at timestamptz(3) not null default now(),
        check (charge_type <> 'setup_verification' or amount = 0),
        check (payment_method <> 'wallet' or wallet_type is not null)
      );
      create index transactions_merchant_idx on transactions (merchant_id, created_at desc, id desc);
      create index transactions_customer_idx on transactions (customer_id);
      create index transactions_order_idx on transactions (order_id);
      create index transactions_instrument_idx on transactions (payment_instrument_id);
      create index transactions_provider_ref_idx on transactions (connector_id, provider_reference);

      create table transaction_attempts (
        id uuid primary key,
        transaction_id text not null references transactions(id) on delete cascade,
        attempt_number integer not null check (attempt_number >= 1),
        is_fallback boolean not null,
        connector_id text not null,
        provider_slug text not null,
        routing_node_id text,
        status text not null check (status in ('pending', 'success', 'failed', 'error')),
        outcome text,
        started_at timestamptz(3) not null,
        finished_at timestamptz(3),
        error_category text,
        error_code text,
        error_message text,
        provider_reference text,
        constraint transaction_attempts_number_key unique (transaction_id, attempt_number)
      );

      create table refunds (
        id text primary key,
        organization_id text not null references organizations(id),
        merchant_id text not null references merchants(id),
        transaction_id text not null references transactions(id),
        amount bigint not null check (amount > 0),
        currency text not null,
        status text not null check (status in ('pending', 'succeeded', 'failed')),
        reason text,
        provider_reference text,
        error_code text,
        metadata jsonb,
        created_at timestamptz(3) not null default now(),
        updated_at timestamptz(3) not null default now()
      );
      create index refunds_transaction_idx on refunds (transaction_id, created_at desc, id desc);
      create index refunds_merchant_idx on refunds (merchant_id, created_at desc, id desc);

      create table provider_webhook_events (
        id uuid primary key,
        connector_id text not null references merchant_connectors(id) on delete cascade,
        provider_event_id text not null,
        event_type text not null,
        provider_reference text,
        transaction_id text,
        received_at timestamptz(3) not null default now(),
        constraint provider_webhook_events_dedup_key unique (connector_id, provider_event_id)
      );
    `);
  }

  override async down(): Promise<void> {
    this.addSql(`
      drop table provider_webhook_events, refunds, transaction_attempts, transactions, order_status_history, order_items, orders;
      alter table payment_instruments drop constraint payment_instruments_customer_id_fkey;
      alter table payment_instruments add constraint payment_instruments_customer_id_fkey
        foreign key (customer_id) references customers(id) on delete cascade;
    `);
  }
}
