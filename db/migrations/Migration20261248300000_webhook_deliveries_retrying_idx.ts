import { Migration } from '@mikro-orm/migrations';

/**
 * The retry backlog gauge (db/repositories/operational-gauges.repository.ts) reads only attempts waiting for a retry
 * due in the last week: a partial index keeps each scrape to those rows instead of the whole delivery log, which
 * grows with every attempt ever made.
 */
export class Migration20261248300000_webhook_deliveries_retrying_idx extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create index webhook_deliveries_retrying_idx on webhook_deliveries (next_retry_at) where status = 'retrying';`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop index webhook_deliveries_retrying_idx;`);
  }
}
