import { Migration } from '@mikro-orm/migrations';

/**
 * The units a subscription bills each cycle (a checkout selling 3 seats renews 3 seats): current_amount is the
 * unit price times this, and an offer change or a cycle-limit renewal keeps it.
 */
export class Migration20261225000000_subscription_quantity extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table subscriptions add column quantity integer not null default 1 check (quantity >= 1);');
  }

  override async down(): Promise<void> {
    this.addSql('alter table subscriptions drop column quantity;');
  }
}
