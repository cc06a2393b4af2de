import { Migration } from '@mikro-orm/migrations';

/**
 * Where the hosted checkout sends the buyer: success_url once the checkout is paid or its card saved (its
 * {CHECKOUT_SESSION_ID} replaced by the page), cancel_url behind the page's "back" link. Both optional.
 */
export class Migration20261249410000_checkout_setup_redirect_urls extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table checkout_sessions
        add column success_url text,
        add column cancel_url text;
    `);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table checkout_sessions drop column cancel_url, drop column success_url;`);
  }
}
