import { Migration } from '@mikro-orm/migrations';

/**
 * A checkout session takes one payment: the payment that claimed it (moved it to payment_pending) is named here, so a
 * second payment cannot claim it while the first is under way, a retry of the same payment finds its own claim, and
 * only the claiming payment gives the checkout back when it takes no money. Null: no payment holds the checkout.
 */
export class Migration20261243000000_checkout_paying_transaction extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table checkout_sessions add column paying_transaction_id text;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table checkout_sessions drop column paying_transaction_id;`);
  }
}
