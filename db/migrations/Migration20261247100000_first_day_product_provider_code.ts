import { Migration } from '@mikro-orm/migrations';

/**
 * One decline vocabulary: a failed transaction's failure_code is Switchyard's provider-independent code, and the
 * provider's own code is kept beside it as provider_code (domain/transactions/transactions.transitions.ts). Rows written
 * before keep their failure_code as it was and have no provider_code.
 */
export class Migration20261247100000_first_day_product_provider_code extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table transactions add column provider_code text;');
  }

  override async down(): Promise<void> {
    this.addSql('alter table transactions drop column provider_code;');
  }
}
