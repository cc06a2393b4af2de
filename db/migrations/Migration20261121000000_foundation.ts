import { Migration } from '@mikro-orm/migrations';

/** Tenancy (organizations, merchants), API keys, customers, idempotency records and rate-limit windows. */
export class Migration20261121000000_foundation extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table organizations (
        id text primary key,
        name text not null,
        created_at timestamptz(3) not null default now(),
        updated_at timestamptz(3) not null default now()
      );

      create table merchants (
        id text primary key,
        organization_id text not null references organizations(id),
        name text not null,
        slug text not null unique,
        external_reference text,
        business_registration_number text,
        mcc text,
        phone_number text,
        address jsonb,
        website text,
        status text not null default 'active' check (status in ('active', 'inactive', 'suspended')),
        network_enrolled boolean not null default false,
        created_at timestamptz(3) not null default now(),
        updated_at timestamptz(3) not null default now()
      );
      create index merchants_organization_idx on merchants (organization_id, created_at desc);

      create table api_keys (
        id text primary key,
        organization_id text not null references organizations(id),
        merchant_id text references merchants(id),
        kind text not null check (kind in ('secret', 'public')),
        secret_hash text not null unique,
        redacted text not null,
        scopes text[] not null,
        status text not null default 'active' check (status in ('active', 'revoked')),
        created_at timestamptz(3) not null default now(),
        revoked_at timestamptz(3)
      );

      create table customers (
        id text primary key,
        merchant_id text not null references merchants(id),
        email text,
        name text,
        phone text,
        document_type text check (document_type in ('cpf', 'cnpj', 'passport', 'tax_id')),
        document_number_encrypted text,
        billing_address jsonb,
        metadata jsonb,
        created_at timestamptz(3) not null default now(),
        updated_at timestamptz(3) not null default now(),
        constraint customers_email_lowercase check (email = lower(email))
      );
      create unique index customers_merchant_email_key on customers (merchant_id, email) where email is not null;
      create index customers_merchant_created_idx on customers (merchant_id, created_at desc, id desc);

      -- One row per (merchant or organization, key). The row is written in the same database transaction
      -- as the resource it created, so a crash can never leave one without the other.
      create table idempotency_keys (
        scope_id text not null,
        key text not null,
        fingerprint text not null,
        response_status integer,
        -- Sealed JSON text (api/lib/crypto.ts), not jsonb: a replay must return the very same bytes, and the
        -- stored response may hold personal data or a secret shown once. Not named *_encrypted on purpose:
        -- rows live 24 h, so key rotation keeps the previous key that long instead of re-wrapping them.
        response_sealed text,
        created_at timestamptz(3) not null default now(),
        expires_at timestamptz(3) not null,
        primary key (scope_id, key)
      );
      create index idempotency_keys_expires_idx on idempotency_keys (expires_at);

      -- Fixed-window request counters shared by every API process. Unlogged: every request writes here, and
      -- losing the current minute's counts in a crash is harmless, so skip the WAL flush on each commit.
      create unlogged table rate_limit_counters (
        bucket text not null,
        window_start timestamptz not null,
        count integer not null,
        primary key (bucket, window_start)
      );
      create index rate_limit_counters_window_idx on rate_limit_counters (window_start);
    `);
  }

  override async down(): Promise<void> {
    this.addSql('drop table rate_limit_counters, idempotency_keys, customers, api_keys, merchants, organizations;');
  }
}
