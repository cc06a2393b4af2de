import { Migration } from '@mikro-orm/migrations';

/**
 * Subscriptions (Document 3, "Subscription") and their append-only transition log. The row is the read model the
 * subscription workflow's activities write; the workflow owns time. Internal columns beside the spec's fields:
 * plan_key (the product family, or the product without one: what "one live subscription per plan" means),
 * billing_anchor_at / next_due_index (the billing calendar the workflow computes periods from), custom_billing_days,
 * country (the renewal charge's routing country) and origin_transaction_id (the first charge, so creation under
 * activity retries finds its row instead of writing a second one) and last_step_key (see below).
 */
export class Migration20261216000000_subscriptions extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table subscriptions (
        id text primary key,
        organization_id text not null references organizations(id),
        merchant_id text not null references merchants(id),
        customer_id text not null references customers(id) on delete restrict,
        current_offer_id text not null references offers(id),
        product_id text not null references products(id),
        product_family_id text references product_families(id),
        plan_key text not null,
        billing_cycle text not null check (billing_cycle in
          ('daily', 'biweekly', 'monthly', 'quarterly', 'half_yearly', 'yearly', 'custom', 'none')),
        custom_billing_days integer check (custom_billing_days >= 1),
        currency text not null check (currency ~ '^[A-Z]{3}$'),
        current_amount bigint not null check (current_amount >= 0),
        current_period_start timestamptz(3) not null,
        current_period_end timestamptz(3) not null,
        next_billing_at timestamptz(3),
        billing_anchor_day integer check (billing_anchor_day between 1 and 31),
        billing_anchor_at timestamptz(3) not null,
        next_due_index integer not null default 1 check (next_due_index >= 0),
        trial_start timestamptz(3),
        trial_end timestamptz(3),
        dunning_started_at timestamptz(3),
        dunning_attempt_count integer not null default 0 check (dunning_attempt_count >= 0),
        dunning_next_retry_at timestamptz(3),
        cycles_completed integer not null default 0 check (cycles_completed >= 0),
        cycle_limit integer check (cycle_limit >= 1),
        status text not null check (status in ('trialing', 'active', 'dunning', 'paused', 'cancelled', 'expired')),
        cancel_at_period_end boolean not null default false,
        cancelled_at timestamptz(3),
        cancellation_reason text,
        payment_instrument_id text not null references payment_instruments(id),
        preferred_connector_id text,
        initial_network_transaction_id text,
        preferred_installments integer not null default 1 check (preferred_installments >= 1),
        country text not null,
        origin_transaction_id text not null unique,
        -- The workflow writes one step at a time: a retried write of the last step finds its key and does nothing.
        last_step_key text,
        created_at timestamptz(3) not null default now(),
        updated_at timestamptz(3) not null default now()
      );
      -- One live subscription per plan per customer (cancelled and expired ones do not count).
      create unique index subscriptions_one_live_per_plan on subscriptions (merchant_id, customer_id, plan_key)
        where status not in ('cancelled', 'expired');
      create index subscriptions_merchant_idx on subscriptions (merchant_id, created_at desc, id desc);
      create index subscriptions_customer_idx on subscriptions (customer_id);

      create table subscription_transitions (
        id text primary key,
        subscription_id text not null references subscriptions(id) on delete cascade,
        merchant_id text not null references merchants(id),
        transition_type text not null check (transition_type in ('creation', 'upgrade', 'downgrade', 'reactivation',
          'cancellation', 'trial_start', 'trial_conversion', 'payment_method_change', 'dunning_entry', 'dunning_retry',
          'dunning_cancelled', 'expiration', 'cycle_limit_renewed', 'pause', 'resume')),
        from_offer_id text,
        to_offer_id text,
        from_status text,
        to_status text not null,
        triggered_by text not null check (triggered_by in ('customer', 'system', 'admin')),
        actor jsonb,
        order_id text,
        reason text,
        metadata jsonb,
        -- Derived from the workflow step that wrote it: a retried activity finds its row and writes nothing twice.
        transition_key text not null unique,
        -- The workflow's clock (the product's), and the write order for transitions stamped at the same instant.
        created_at timestamptz(3) not null default now(),
        seq bigint generated always as identity
      );
      create index subscription_transitions_sub_idx on subscription_transitions (subscription_id, created_at desc, seq desc);
    `);
  }

  override async down(): Promise<void> {
    this.addSql('drop table subscription_transitions, subscriptions;');
  }
}
