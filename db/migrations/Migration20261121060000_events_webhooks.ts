import { Migration } from '@mikro-orm/migrations';

/**
 * Events (the outbox every producer writes in its own transaction), merchant webhook configurations (signing
 * secrets encrypted) and one delivery record per attempt.
 */
export class Migration20261121060000_events_webhooks extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table events (
        id text primary key,
        organization_id text not null references organizations(id),
        merchant_id text not null references merchants(id),
        type text not null,
        -- The resource as its API presents it. json (not jsonb) keeps the presenter's field order, so the
        -- delivered body reads like the API resource.
        data json not null,
        created_at timestamptz(3) not null default now(),
        -- The outbox mark: null until a delivery workflow was started for every matching configuration.
        fanned_out_at timestamptz(3)
      );
      create index events_merchant_idx on events (merchant_id, created_at desc, id desc);
      create index events_outbox_idx on events (created_at, id) where fanned_out_at is null;

      create table merchant_webhook_configs (
        id text primary key,
        merchant_id text not null references merchants(id),
        url text not null check (char_length(url) <= 2048),
        description text check (char_length(description) <= 500),
        -- null = every event; never empty (an endpoint that wants nothing is set is_active false).
        event_filter text[] check (event_filter is null or cardinality(event_filter) > 0),
        is_active boolean not null default true,
        -- Envelope-encrypted (api/lib/crypto.ts); the plaintext is shown once, on create and rotate.
        secret_encrypted text not null,
        -- After a rotation the replaced secret still signs (second signature) until previous_secret_expires_at.
        previous_secret_encrypted text,
        previous_secret_expires_at timestamptz(3),
        last_triggered_at timestamptz(3),
        created_at timestamptz(3) not null default now(),
        updated_at timestamptz(3) not null default now(),
        constraint merchant_webhook_configs_previous_secret check ((previous_secret_encrypted is null) = (previous_secret_expires_at is null))
      );
      create index merchant_webhook_configs_merchant_idx on merchant_webhook_configs (merchant_id, created_at desc, id desc);

      -- One row per attempt. merchant_webhook_config_id is not a foreign key: the history outlives a deleted configuration.
      create table webhook_deliveries (
        id text primary key,
        merchant_id text not null references merchants(id),
        merchant_webhook_config_id text not null,
        event_id text not null references events(id),
        event_type text not null,
        -- The Temporal workflow that made the attempt (webhook-<evt>-<whc>, or with a manual suffix).
        workflow_id text not null,
        trigger text not null check (trigger in ('automatic', 'manual')),
        attempt_number integer not null check (attempt_number >= 1),
        target_url text not null,
        http_status_code integer,
        response_body text check (octet_length(response_body) <= 1024),
        error text,
        status text not null check (status in ('succeeded', 'retrying', 'failed')),
        next_retry_at timestamptz(3),
        duration_ms integer,
        created_at timestamptz(3) not null default now(),
        sent_at timestamptz(3),
        -- An activity retried by Temporal rewrites its own row instead of adding one.
        constraint webhook_deliveries_attempt_key unique (workflow_id, attempt_number),
        constraint webhook_deliveries_retry_time check ((status = 'retrying') = (next_retry_at is not null))
      );
      create index webhook_deliveries_merchant_idx on webhook_deliveries (merchant_id, created_at desc, id desc);
      create index webhook_deliveries_config_event_idx on webhook_deliveries (merchant_webhook_config_id, event_id, created_at);
    `);
  }

  override async down(): Promise<void> {
    this.addSql('drop table webhook_deliveries, merchant_webhook_configs, events;');
  }
}
