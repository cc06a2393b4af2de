import { Migration } from '@mikro-orm/migrations';

/**
 * Why the provider declined a payment it had first left pending (pix, boleto, a card held for review), as the
 * settlement's read or the provider's payment.failed webhook said it (a failed transaction always says
 * why). Kept on the attempt that went pending, apart from error_code/error_message (which describe the attempt's
 * own call, and stay empty for a call answered pending). Null: the provider gave no reason, or it was not declined.
 */
export class Migration20261242000000_attempt_late_declines extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table transaction_attempts
        add column late_decline_code text check (char_length(late_decline_code) <= 64),
        add column late_decline_message text check (char_length(late_decline_message) <= 300);
    `);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table transaction_attempts drop column late_decline_code, drop column late_decline_message;`);
  }
}
