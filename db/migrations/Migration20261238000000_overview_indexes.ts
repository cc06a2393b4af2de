import { Migration } from '@mikro-orm/migrations';

/**
 * The merchant Dashboard's Overview (GET /merchant/overview) reads a merchant's last 30 days from the read models;
 * these covering indexes let each of its statements read index pages only (measured at 100,000 transactions in
 * bench/overview.ts: the payments and attempts statements went from a table scan with an on-disk sort and a hash
 * join to index-only scans, several times faster).
 * - transactions by merchant and creation time, with what the daily figures need. The cost: a status or captured
 *   amount change now also writes this index (no HOT update), one more index entry per transaction write.
 * - transaction_attempts by connector and start time, with the status (a connector belongs to one merchant).
 * - subscription_transitions by merchant, in each subscription's replay order (the active-per-day series).
 */
export class Migration20261238000000_overview_indexes extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create index transactions_merchant_overview_idx on transactions (merchant_id, created_at)
        include (charge_type, status, currency, connector_id, amount_captured);
      create index transaction_attempts_connector_overview_idx on transaction_attempts (connector_id, started_at)
        include (status);
      create index subscription_transitions_merchant_replay_idx on subscription_transitions
        (merchant_id, subscription_id, created_at, seq) include (transition_type, from_status, to_status);
    `);
  }

  override async down(): Promise<void> {
    this.addSql(`
      drop index transactions_merchant_overview_idx;
      drop index transaction_attempts_connector_overview_idx;
      drop index subscription_transitions_merchant_replay_idx;
    `);
  }
}
