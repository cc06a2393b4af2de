import { Migration } from '@mikro-orm/migrations';

/**
 * The reconciler gives back a charge the provider made while its transaction answered `failed`, and follows that
 * give-back (a refund or a void) to the provider's final word before it settles the attempt: a refund answered
 * pending is asked about again on later runs, one the provider refused is sent again under the next key. The
 * attempt keeps how many give-backs were sent (each under its own provider key), the provider's reference of the
 * latest one (the refund's own webhook finds it by that reference) and where it stands.
 */
export class Migration20261243100000_attempt_give_back extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table transaction_attempts
        add column give_back_tries integer not null default 0,
        add column give_back_reference text check (char_length(give_back_reference) <= 200),
        add column give_back_status text check (give_back_status in ('pending', 'succeeded', 'failed'));
    `);
  }

  override async down(): Promise<void> {
    this.addSql(`
      alter table transaction_attempts drop column give_back_tries, drop column give_back_reference,
        drop column give_back_status;
    `);
  }
}
