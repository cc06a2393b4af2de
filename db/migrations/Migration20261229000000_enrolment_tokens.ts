import { Migration } from '@mikro-orm/migrations';

/**
 * Enrolment tokens: a browser session without a checkout enrols a card only with a short-lived,
 * single-use token the merchant's server minted for one of its customers (POST /merchants/:merchant_id/enrolment-
 * tokens). Stored by the SHA-256 of the token; `used_by` names the card verification that spent it, so a retry of
 * that same verification (no answer the first time) is let through and any other use is refused.
 */
export class Migration20261229000000_enrolment_tokens extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table enrolment_tokens (
        token_hash text primary key,
        merchant_id text not null references merchants(id) on delete cascade,
        customer_id text not null references customers(id) on delete cascade,
        expires_at timestamptz not null,
        used_by text,
        created_at timestamptz not null default now()
      );
      create index enrolment_tokens_expires_at_idx on enrolment_tokens (expires_at);
    `);
  }

  override async down(): Promise<void> {
    this.addSql('drop table enrolment_tokens;');
  }
}
