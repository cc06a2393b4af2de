import { Migration } from '@mikro-orm/migrations';

/**
 * 3-D Secure: each attempt records how it was authenticated (requested, status, version, ECI, liability shift, and
 * while a challenge is open the provider's challenge URL and its deadline), and a card charge keeps the buyer's
 * return_url, where the return endpoint sends the browser once the challenge is over.
 */
export class Migration20261247300000_three_ds extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table transaction_attempts add column three_ds jsonb;
      alter table transactions add column return_url text;
    `);
  }

  override async down(): Promise<void> {
    this.addSql(`
      alter table transaction_attempts drop column three_ds;
      alter table transactions drop column return_url;
    `);
  }
}
