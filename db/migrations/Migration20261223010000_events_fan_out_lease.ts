import { Migration } from '@mikro-orm/migrations';

/**
 * The outbox's lease for the direct first delivery attempt (activities/webhooks/fan-out.ts): the listener leases
 * an event, POSTs it to its endpoints outside any transaction, records the attempts and only then sets
 * fanned_out_at. A process dying in between leaves the lease to expire; the sweep then finishes the fan-out from
 * the delivery log. Only db/repositories/events.repository.ts reads or writes it (not mapped on the entity).
 */
export class Migration20261223010000_events_fan_out_lease extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table events add column fan_out_leased_until timestamptz(3);');
  }

  override async down(): Promise<void> {
    this.addSql('alter table events drop column fan_out_leased_until;');
  }
}
