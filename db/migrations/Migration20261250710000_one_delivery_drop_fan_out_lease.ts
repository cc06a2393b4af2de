import { Migration } from '@mikro-orm/migrations';

/**
 * Every webhook delivery is a delivery workflow's, started by the one outbox fan-out (claim, start, mark in one
 * transaction): no fan-out leases an event any more, so nothing reads or writes events.fan_out_leased_until.
 */
export class Migration20261250710000_one_delivery_drop_fan_out_lease extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table events drop column fan_out_leased_until;');
  }

  override async down(): Promise<void> {
    this.addSql('alter table events add column fan_out_leased_until timestamptz(3);');
  }
}
