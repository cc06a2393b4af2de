import { Migration } from '@mikro-orm/migrations';

/**
 * A capture or void whose answer was lost at a provider that cannot be read (Adyen) is settled by the provider's
 * notification (CAPTURE, CAPTURE_FAILED, CANCELLATION). The transaction keeps that verdict with the operation it
 * answers (its pending_operation_id at the time), and the operation workflow's next lookup takes it.
 */
export class Migration20261243500000_transaction_operation_verdict extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table transactions
        add column operation_verdict text check (operation_verdict in ('succeeded', 'failed')),
        add column operation_verdict_for text check (char_length(operation_verdict_for) <= 100);
    `);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table transactions drop column operation_verdict, drop column operation_verdict_for;`);
  }
}
