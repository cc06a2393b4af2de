import { Migration } from '@mikro-orm/migrations';

/**
 * A test clock moves at most a stated span past the time it was created at: that time is kept here (frozen_time
 * moves with every advance). Clocks made before this know only where they are now, so they start from there.
 */
export class Migration20261244500000_test_clock_start_time extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table test_clocks add column start_time timestamptz(3);`);
    this.addSql(`update test_clocks set start_time = frozen_time;`);
    this.addSql(`alter table test_clocks alter column start_time set not null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table test_clocks drop column start_time;`);
  }
}
