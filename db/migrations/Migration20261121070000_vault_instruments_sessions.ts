import { Migration } from '@mikro-orm/migrations';

/**
 * The card vault: browser sessions (public-key callers), single-use card tokens, the CVCs waiting for the one
 * charge that consumes their token, and saved payment instruments. PANs are stored only envelope-encrypted
 * (api/lib/crypto.ts); the keyed fingerprint (HMAC-SHA256) deduplicates enrolment without revealing the PAN.
 */
export class Migration20261121070000_vault_instruments_sessions extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table browser_sessions (
        id text primary key,
        organization_id text not null references organizations(id),
        merchant_id text not null references merchants(id),
        -- The public key that created it: the session answers only to keys of the same organization/merchant.
        api_key_id text not null references api_keys(id),
        checkout_session_id text references checkout_sessions(id),
        sdk_version text,
        metadata jsonb,
        expires_at timestamptz(3) not null,
        created_at timestamptz(3) not null default now(),
        updated_at timestamptz(3) not null default now()
      );
      create index browser_sessions_merchant_idx on browser_sessions (merchant_id, created_at desc);

      create table card_tokens (
        id text primary key,
        organization_id text not null references organizations(id),
        merchant_id text not null references merchants(id),
        browser_session_id text not null references browser_sessions(id),
        checkout_session_id text references checkout_sessions(id),
        purpose text not null check (purpose in ('one_time', 'instrument_enrollment')),
        -- active until consumed (used) or past expires_at (read as expired; swept to expired).
        status text not null default 'active' check (status in ('active', 'used', 'expired')),
        card_brand text not null,
        last4 text not null check (last4 ~ '^[0-9]{4}$'),
        bin text not null check (bin ~ '^[0-9]{6}([0-9]{2})?$'),
        exp_month integer not null check (exp_month between 1 and 12),
        exp_year integer not null check (exp_year between 2000 and 2999),
        -- Envelope-encrypted; set to null when the token is used or expires (the instrument keeps its own copy).
        pan_encrypted text,
        holder_name_encrypted text,
        fingerprint text not null,
        additional_metadata jsonb,
        expires_at timestamptz(3) not null,
        used_at timestamptz(3),
        -- What consumed it: pi_… (enrolment) or tx_… (charge).
        used_by text,
        created_at timestamptz(3) not null default now(),
        updated_at timestamptz(3) not null default now(),
        constraint card_tokens_pan_only_while_active check (status = 'active' or pan_encrypted is null)
      );
      create index card_tokens_merchant_idx on card_tokens (merchant_id, created_at desc);
      create index card_tokens_expiry_idx on card_tokens (expires_at) where status = 'active';

      -- The CVC of an active token, envelope-encrypted, for the single charge that consumes the token. Unlogged:
      -- never in the WAL, so never in a replica, a PITR archive or a backup taken from them; the row is deleted in
      -- the transaction that uses the token and swept once the token expires.
      create unlogged table card_token_cvcs (
        card_token_id text primary key,
        cvc_encrypted text not null,
        expires_at timestamptz(3) not null
      );
      create index card_token_cvcs_expiry_idx on card_token_cvcs (expires_at);

      create table payment_instruments (
        id text primary key,
        organization_id text not null references organizations(id),
        merchant_id text not null references merchants(id),
        -- A deleted customer takes its saved cards with it (their sealed PANs go too).
        customer_id text not null references customers(id) on delete cascade,
        instrument_type text not null default 'card' check (instrument_type in ('card')),
        card_brand text,
        card_type text check (card_type in ('credit', 'debit')),
        last4 text check (last4 ~ '^[0-9]{4}$'),
        bin text check (bin ~ '^[0-9]{6}([0-9]{2})?$'),
        issuer_country text,
        exp_month integer check (exp_month between 1 and 12),
        exp_year integer check (exp_year between 2000 and 2999),
        -- The first instant after the card's expiry month (UTC): an active instrument reads as expired from then.
        card_expires_at timestamptz(3),
        status text not null default 'active' check (status in ('active', 'expired', 'revoked')),
        pan_encrypted text not null,
        holder_name_encrypted text,
        fingerprint text not null,
        -- From the zero-amount verification: what merchant-initiated charges reference.
        network_transaction_id text,
        verified_connector_id text,
        metadata jsonb,
        created_at timestamptz(3) not null default now(),
        updated_at timestamptz(3) not null default now(),
        revoked_at timestamptz(3)
      );
      -- One live (not revoked) instrument per card and customer: enrolment of the same card deduplicates.
      create unique index payment_instruments_customer_card_key on payment_instruments (merchant_id, customer_id, fingerprint)
        where status <> 'revoked';
      create index payment_instruments_merchant_idx on payment_instruments (merchant_id, created_at desc, id desc);
      create index payment_instruments_customer_idx on payment_instruments (customer_id);
    `);
  }

  override async down(): Promise<void> {
    this.addSql('drop table payment_instruments, card_token_cvcs, card_tokens, browser_sessions;');
  }
}
