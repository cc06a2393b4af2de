import { Migration } from '@mikro-orm/migrations';

/**
 * Who asked for each capture, void and refund (so the order history does not say "by api" for a Dashboard
 * user's refund). Keyed by the operation id, which prefixes the transition keys of the order history entries it causes.
 */
export class Migration20261232000000_payment_operation_actors extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table payment_operation_actors (
        operation_id text primary key,
        merchant_id text not null,
        transaction_id text not null,
        kind text not null check (kind in ('capture', 'void', 'refund')),
        actor jsonb not null,
        created_at timestamptz(3) not null default now()
      );
      create index payment_operation_actors_transaction_idx on payment_operation_actors (transaction_id);
    `);
  }

  override async down(): Promise<void> {
    this.addSql('drop table payment_operation_actors;');
  }
}
