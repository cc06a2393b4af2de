import { Migration } from '@mikro-orm/migrations';

/**
 * Every inbound provider webhook that names an existing connector, as the organization Dashboard shows it: the
 * authentic ones with what became of them (processed, duplicate, ignored, failed) and the refused ones with why
 * (invalid). Metadata only (never headers, body or secret), each text field capped; housekeeping purges old rows.
 */
export class Migration20261215000000_provider_webhook_receipts extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table provider_webhook_receipts (
        id uuid primary key,
        -- Orders deliveries received within the same millisecond.
        seq bigint generated always as identity,
        connector_id text not null references merchant_connectors(id) on delete cascade,
        status text not null check (status in ('processed', 'duplicate', 'ignored', 'failed', 'invalid')),
        reason text check (char_length(reason) <= 64),
        detail text check (char_length(detail) <= 300),
        event_type text check (char_length(event_type) <= 100),
        provider_event_id text check (char_length(provider_event_id) <= 200),
        provider_reference text check (char_length(provider_reference) <= 200),
        received_at timestamptz(3) not null default now()
      );
      create index provider_webhook_receipts_connector_idx
        on provider_webhook_receipts (connector_id, received_at desc, seq desc);
      create index provider_webhook_receipts_received_idx on provider_webhook_receipts (received_at);
    `);
  }

  override async down(): Promise<void> {
    this.addSql('drop table provider_webhook_receipts;');
  }
}
