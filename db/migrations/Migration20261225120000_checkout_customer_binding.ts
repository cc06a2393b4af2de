import { Migration } from '@mikro-orm/migrations';

/**
 * How a checkout's customer was bound: `id` when the merchant's server named the customer (customer_id:
 * a buyer it authenticated), `email` when an inline customer or an e-mail matched one. The browser sees the
 * customer's saved cards only for `id`: anyone can type someone else's e-mail into a guest checkout. Existing rows
 * stay null (treated like `email`).
 */
export class Migration20261225120000_checkout_customer_binding extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table checkout_sessions
        add column customer_bound_by text check (customer_bound_by in ('id', 'email'));
    `);
  }

  override async down(): Promise<void> {
    this.addSql('alter table checkout_sessions drop column customer_bound_by;');
  }
}
