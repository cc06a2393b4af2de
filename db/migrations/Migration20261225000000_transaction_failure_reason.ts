import { Migration } from '@mikro-orm/migrations';

/**
 * Why a transaction failed (or expired, or was canceled), in the transaction itself: the last attempt's provider
 * code and message, or the reason no provider was tried (no connector of the routing plan takes the charge, the
 * card token already used). Written with the move by finalizeCharge (domain/transactions/transactions.transitions.ts).
 */
export class Migration20261225000000_transaction_failure_reason extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table transactions add column failure_code text, add column failure_message text;');
  }

  override async down(): Promise<void> {
    this.addSql('alter table transactions drop column failure_code, drop column failure_message;');
  }
}
