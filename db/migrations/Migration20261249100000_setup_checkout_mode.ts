import { Migration } from '@mikro-orm/migrations';

/**
 * A checkout session in setup mode saves a card for its customer without selling anything: it has no offer, and
 * once complete it names the payment instrument it saved. A payment session keeps its offer (the check says so).
 */
export class Migration20261249100000_setup_checkout_mode extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table checkout_sessions
        add column mode text not null default 'payment' check (mode in ('payment', 'setup')),
        add column payment_instrument_id text references payment_instruments(id),
        alter column offer_id drop not null,
        add constraint checkout_sessions_mode_offer check ((mode = 'payment') = (offer_id is not null));
    `);
  }

  /** Refused (offer_id set not null) while setup sessions exist: they cannot be expressed without a mode. */
  override async down(): Promise<void> {
    this.addSql(`
      alter table checkout_sessions
        drop constraint checkout_sessions_mode_offer,
        alter column offer_id set not null,
        drop column payment_instrument_id,
        drop column mode;
    `);
  }
}
