import { Migration } from '@mikro-orm/migrations';

/**
 * "The next renewal fails" on a test clock: a failure armed for a subscription (at most one waiting per
 * subscription) is claimed by the next renewal charge, which records its transaction id here so a retried attempt
 * of that charge declines the same way and the charge after it is left alone.
 */
export class Migration20261248200000_first_day_save_renewal_failures extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table test_clock_renewal_failures (
        id bigint generated always as identity primary key,
        merchant_id text not null references merchants(id),
        test_clock_id text not null references test_clocks(id),
        subscription_id text not null references subscriptions(id),
        failure_code text not null,
        armed_at timestamptz(3) not null default now(),
        transaction_id text,
        claimed_at timestamptz(3)
      );`);
    this.addSql(`
      create unique index test_clock_renewal_failures_armed_key
        on test_clock_renewal_failures (subscription_id) where transaction_id is null;`);
    this.addSql(`
      create index test_clock_renewal_failures_claimed_idx
        on test_clock_renewal_failures (subscription_id, transaction_id) where transaction_id is not null;`);
  }

  override async down(): Promise<void> {
    this.addSql('drop table test_clock_renewal_failures;');
  }
}
