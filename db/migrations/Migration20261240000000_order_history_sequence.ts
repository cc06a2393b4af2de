import { Migration } from '@mikro-orm/migrations';

/**
 * An order's status history in the order its moves happened (found by the transaction model, seed 5286): created_at
 * defaulted to now(), the start of the writing database transaction, so a move that waited on the order's row lock
 * behind another was stamped before it. `seq` is taken when the row is inserted, after the lock, so it orders the
 * chain; created_at is the insert's own clock from now on.
 */
export class Migration20261240000000_order_history_sequence extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table order_status_history add column seq bigint generated always as identity;
      alter table order_status_history alter column created_at set default clock_timestamp();
      drop index order_status_history_order_idx;
      create index order_status_history_order_idx on order_status_history (order_id, seq);
    `);
  }

  override async down(): Promise<void> {
    this.addSql(`
      drop index order_status_history_order_idx;
      create index order_status_history_order_idx on order_status_history (order_id, created_at);
      alter table order_status_history alter column created_at set default now();
      alter table order_status_history drop column seq;
    `);
  }
}
