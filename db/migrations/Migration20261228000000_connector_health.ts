import { Migration } from '@mikro-orm/migrations';

/**
 * Connector health: the circuit breaker's state per connector, the decline table per merchant, the
 * routing profile's opt-in approval-rate ordering and the routing decision recorded on each transaction.
 *
 * connector_health has a row only once a connector has failed (or its circuit was set by hand): the attempt's own
 * statement upserts it on an infrastructure failure and touches it on a success only while it holds failures, so a
 * healthy connector costs no extra write per charge. The window index serves the sliding-window read.
 */
export class Migration20261228000000_connector_health extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table connector_health (
        connector_id text primary key references merchant_connectors(id) on delete cascade,
        merchant_id text not null,
        state text not null default 'closed' check (state in ('closed', 'open', 'half_open')),
        consecutive_failures integer not null default 0,
        failure_threshold integer not null default 5,
        cooldown_seconds integer not null default 60,
        opened_at timestamptz,
        next_probe_at timestamptz,
        last_failure_at timestamptz,
        last_failure_code text,
        changed_at timestamptz,
        updated_at timestamptz not null default now()
      );
      create index connector_health_merchant_idx on connector_health (merchant_id);
      create index transaction_attempts_connector_window_idx on transaction_attempts (connector_id, started_at desc);
      create table merchant_routing_settings (
        merchant_id text primary key references merchants(id) on delete cascade,
        decline_actions jsonb not null default '{}',
        code_actions jsonb not null default '{}',
        updated_at timestamptz not null default now()
      );
      alter table routing_profiles add column optimize text not null default 'none'
        check (optimize in ('none', 'approval_rate'));
      alter table transactions add column routing_decision jsonb;
    `);
  }

  override async down(): Promise<void> {
    this.addSql(`
      alter table transactions drop column routing_decision;
      alter table routing_profiles drop column optimize;
      drop table merchant_routing_settings;
      drop index transaction_attempts_connector_window_idx;
      drop table connector_health;
    `);
  }
}
