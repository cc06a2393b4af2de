import { Migration } from '@mikro-orm/migrations';

/**
 * Catalog (families, products, offers, prices, transitions) and checkout sessions (items, events).
 * "Unique among live rows" rules are partial unique indexes, so the database enforces them under concurrency.
 */
export class Migration20261121010000_catalog extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table product_families (
        id text primary key,
        merchant_id text not null references merchants(id),
        name text not null,
        slug text not null check (slug = lower(slug)),
        description text,
        custom_plan_id text,
        change_charge_behavior text not null default 'next_renew'
          check (change_charge_behavior in ('next_renew', 'prorated', 'override')),
        created_at timestamptz(3) not null default now(),
        updated_at timestamptz(3) not null default now(),
        deleted_at timestamptz(3)
      );
      create unique index product_families_live_slug_key on product_families (merchant_id, slug) where deleted_at is null;
      create unique index product_families_live_custom_plan_key on product_families (merchant_id, custom_plan_id)
        where deleted_at is null and custom_plan_id is not null;
      create index product_families_merchant_created_idx on product_families (merchant_id, created_at desc, id desc);

      create table products (
        id text primary key,
        merchant_id text not null references merchants(id),
        product_family_id text references product_families(id),
        name text not null,
        description text,
        type text not null check (type in ('one_time', 'recurring')),
        tier_order integer check (tier_order >= 0),
        status text not null check (status in ('active', 'archived')),
        metadata jsonb,
        created_at timestamptz(3) not null default now(),
        updated_at timestamptz(3) not null default now(),
        deleted_at timestamptz(3),
        constraint products_tier_with_family check ((product_family_id is null) = (tier_order is null))
      );
      create unique index products_live_family_tier_key on products (product_family_id, tier_order)
        where deleted_at is null and product_family_id is not null;
      create index products_merchant_created_idx on products (merchant_id, created_at desc, id desc);

      create table offers (
        id text primary key,
        merchant_id text not null references merchants(id),
        product_id text not null references products(id),
        name text not null,
        slug text not null check (slug = lower(slug)),
        description text,
        billing_cycle text not null
          check (billing_cycle in ('daily', 'biweekly', 'monthly', 'quarterly', 'half_yearly', 'yearly', 'custom', 'none')),
        custom_billing_days integer check (custom_billing_days >= 1),
        cycle_limit integer check (cycle_limit >= 1),
        free_trial boolean not null default false,
        trial_days integer check (trial_days >= 1),
        setup_charge boolean not null default false,
        renew_after_cycle_limit boolean not null default false,
        renewal_offer_id text references offers(id),
        is_default boolean not null default false,
        status text not null check (status in ('active', 'archived')),
        created_at timestamptz(3) not null default now(),
        updated_at timestamptz(3) not null default now(),
        deleted_at timestamptz(3),
        constraint offers_custom_days check ((billing_cycle = 'custom') = (custom_billing_days is not null)),
        constraint offers_trial_days check (not free_trial or trial_days is not null)
      );
      create unique index offers_live_slug_key on offers (product_id, slug) where deleted_at is null;
      create unique index offers_live_default_key on offers (product_id) where deleted_at is null and is_default;
      create index offers_merchant_created_idx on offers (merchant_id, created_at desc, id desc);

      create table offer_prices (
        id text primary key,
        merchant_id text not null references merchants(id),
        offer_id text not null references offers(id),
        currency text not null check (currency ~ '^[A-Z]{3}$'),
        amount bigint not null check (amount >= 0),
        first_charge_amount bigint check (first_charge_amount >= 0),
        is_default boolean not null default false,
        created_at timestamptz(3) not null default now(),
        updated_at timestamptz(3) not null default now(),
        deleted_at timestamptz(3)
      );
      create unique index offer_prices_live_currency_key on offer_prices (offer_id, currency) where deleted_at is null;
      create unique index offer_prices_live_default_key on offer_prices (offer_id) where deleted_at is null and is_default;

      create table offer_transitions (
        id text primary key,
        merchant_id text not null references merchants(id),
        from_offer_id text not null references offers(id),
        to_offer_id text not null references offers(id),
        change_charge_behavior text check (change_charge_behavior in ('next_renew', 'prorated', 'override')),
        is_active boolean not null default true,
        created_at timestamptz(3) not null default now(),
        updated_at timestamptz(3) not null default now(),
        constraint offer_transitions_distinct check (from_offer_id <> to_offer_id),
        constraint offer_transitions_pair_key unique (from_offer_id, to_offer_id)
      );
      create index offer_transitions_merchant_created_idx on offer_transitions (merchant_id, created_at desc, id desc);

      create table checkout_sessions (
        id text primary key,
        merchant_id text not null references merchants(id),
        offer_id text not null references offers(id),
        customer_id text references customers(id),
        customer_email text,
        customer_name text,
        selected_currency text,
        status text not null
          check (status in ('initiated', 'customer_identified', 'payment_pending', 'completed', 'expired', 'abandoned')),
        external_session_id text,
        expires_at timestamptz(3),
        completed_at timestamptz(3),
        created_at timestamptz(3) not null default now(),
        updated_at timestamptz(3) not null default now()
      );
      create unique index checkout_sessions_external_key on checkout_sessions (merchant_id, external_session_id)
        where external_session_id is not null;
      create index checkout_sessions_merchant_created_idx on checkout_sessions (merchant_id, created_at desc, id desc);

      create table checkout_items (
        id text primary key,
        merchant_id text not null references merchants(id),
        checkout_session_id text not null references checkout_sessions(id) on delete cascade,
        offer_id text not null references offers(id),
        offer_price_id text not null references offer_prices(id),
        currency text not null,
        amount bigint not null,
        first_charge_amount bigint,
        quantity integer not null check (quantity >= 1),
        installments integer not null check (installments >= 1),
        created_at timestamptz(3) not null default now()
      );
      create index checkout_items_session_idx on checkout_items (checkout_session_id, created_at);

      create table checkout_events (
        id text primary key,
        merchant_id text not null references merchants(id),
        checkout_session_id text not null references checkout_sessions(id) on delete cascade,
        event_type text not null,
        source_url text,
        utm_source text,
        utm_medium text,
        utm_campaign text,
        ip_address text,
        user_agent text,
        metadata jsonb,
        created_at timestamptz(3) not null default now()
      );
      create index checkout_events_session_idx on checkout_events (checkout_session_id, created_at);
    `);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table checkout_events, checkout_items, checkout_sessions, offer_transitions, offer_prices,
      offers, products, product_families;`);
  }
}
