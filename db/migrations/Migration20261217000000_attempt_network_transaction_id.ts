import { Migration } from '@mikro-orm/migrations';

/**
 * The card network's transaction id the provider returned for an approved attempt: the first charge of a
 * subscription keeps it (initial_network_transaction_id) so its renewals can reference it as merchant-initiated.
 */
export class Migration20261217000000_attempt_network_transaction_id extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `alter table transaction_attempts add column network_transaction_id text check (char_length(network_transaction_id) <= 200);`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`alter table transaction_attempts drop column network_transaction_id;`);
  }
}
