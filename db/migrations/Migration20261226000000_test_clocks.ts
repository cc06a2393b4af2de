import { Migration } from '@mikro-orm/migrations';

/**
 * Test clocks: a merchant's simulated time. A customer attached to one (customers.test_clock_id) has
 * every subscription run on the clock's frozen_time instead of real time. A deleted clock keeps its row
 * (deleted_at) so its customers still say which clock they were on.
 */
export class Migration20261226000000_test_clocks extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table test_clocks (
        id text primary key,
        merchant_id text not null references merchants(id),
        name text,
        frozen_time timestamptz(3) not null,
        status text not null check (status in ('ready', 'advancing')),
        created_at timestamptz(3) not null default now(),
        updated_at timestamptz(3) not null default now(),
        deleted_at timestamptz(3)
      );
      create index test_clocks_merchant_idx on test_clocks (merchant_id, created_at desc) where deleted_at is null;
      alter table customers add column test_clock_id text references test_clocks(id);
      create index customers_test_clock_idx on customers (test_clock_id) where test_clock_id is not null;
    `);
  }

  override async down(): Promise<void> {
    this.addSql('alter table customers drop column test_clock_id; drop table test_clocks;');
  }
}
