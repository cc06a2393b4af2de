import { Migration } from '@mikro-orm/migrations';

/**
 * The merchant Dashboard's Overview (GET /merchant/overview) reads a merchant's last 30 days from the read models.
 * Its subscription series replays each subscription's transitions in order (a window function over
 * subscription_id, created_at, seq): this index gives them merchant first, already in that order, with the columns
 * the query reads, so the replay is an index-only scan instead of a sort of the whole log.
 */
export class Migration20261238000000_overview_indexes extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create index subscription_transitions_merchant_replay_idx on subscription_transitions
        (merchant_id, subscription_id, created_at, seq) include (transition_type, from_status, to_status);
    `);
  }

  override async down(): Promise<void> {
    this.addSql('drop index subscription_transitions_merchant_replay_idx;');
  }
}
