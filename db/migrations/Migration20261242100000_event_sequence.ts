import { Migration } from '@mikro-orm/migrations';

/**
 * Events in the order they were recorded (as Migration20261240000000 did for an order's history). An
 * event's created_at was the recording process's own clock: the API's and the workers' clocks differ, and two events
 * of one millisecond (one database transaction records several) were ordered by their random ids. `seq` is taken
 * when the row is inserted — for one object's events, after its row lock, so in the order the changes happened —
 * and orders the list, the outbox and the fan-out; created_at is the database's clock at the insert from now on.
 * Existing events are numbered in their former order (created_at, id).
 */
export class Migration20261242100000_event_sequence extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table events add column seq bigint;
      update events e set seq = o.n
        from (select id, row_number() over (order by created_at, id) as n from events) o where o.id = e.id;
      alter table events alter column seq set not null;
      alter table events alter column seq add generated always as identity;
      select setval(pg_get_serial_sequence('events', 'seq'), coalesce((select max(seq) from events), 0) + 1, false);
      alter table events alter column created_at set default clock_timestamp();
      drop index events_merchant_idx;
      create index events_merchant_idx on events (merchant_id, seq desc);
      drop index events_outbox_idx;
      create index events_outbox_idx on events (seq) where fanned_out_at is null;
    `);
  }

  override async down(): Promise<void> {
    this.addSql(`
      drop index events_outbox_idx;
      create index events_outbox_idx on events (created_at, id) where fanned_out_at is null;
      drop index events_merchant_idx;
      create index events_merchant_idx on events (merchant_id, created_at desc, id desc);
      alter table events alter column created_at set default now();
      alter table events drop column seq;
    `);
  }
}
