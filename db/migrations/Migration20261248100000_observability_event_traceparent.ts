import { Migration } from '@mikro-orm/migrations';

/**
 * events.traceparent: the W3C trace context of the change that recorded the event (null when tracing was off or the
 * producer ran outside any trace), so the event's webhook deliveries continue that trace (activities/webhooks/*).
 */
export class Migration20261248100000_observability_event_traceparent extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table events add column traceparent text;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table events drop column traceparent;`);
  }
}
