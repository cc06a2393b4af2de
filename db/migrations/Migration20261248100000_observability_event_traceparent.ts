import { Migration } from '@mikro-orm/migrations';

/**
 * events.traceparent: the W3C trace context of the change that recorded the event (null when tracing was off or the
 * producer ran outside any trace), so the event's webhook deliveries continue that trace (activities/webhooks/*).
 *
 * webhook_deliveries_retrying_idx: the worker's retry-backlog gauge counts deliveries whose latest attempt is
 * `retrying` (operational-gauges.repository.ts); without it that count reads the whole delivery log every scrape.
 */
export class Migration20261248100000_observability_event_traceparent extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table events add column traceparent text;`);
    this.addSql(
      `create index webhook_deliveries_retrying_idx on webhook_deliveries (workflow_id, attempt_number) where status = 'retrying';`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop index webhook_deliveries_retrying_idx;`);
    this.addSql(`alter table events drop column traceparent;`);
  }
}
