import { Migration } from '@mikro-orm/migrations';

/**
 * The mail outbox: every message (invitation, password reset) is a row written in the transaction that
 * decides to send it, delivered by a Temporal workflow (one per row, id mail-<id>). The content holds one-time
 * tokens, so it is sealed like any secret at rest. sent_at is set once the SMTP server accepted the message.
 */
export class Migration20261210010000_mail_outbox extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table mail_outbox (
        id text primary key,
        kind text not null,
        recipient text not null,
        content_encrypted text not null,
        attempts integer not null default 0,
        last_error text,
        sending_since timestamptz(3),
        sent_at timestamptz(3),
        created_at timestamptz(3) not null default now()
      );
      create index mail_outbox_pending_idx on mail_outbox (created_at) where sent_at is null;
    `);
  }

  override async down(): Promise<void> {
    this.addSql('drop table mail_outbox;');
  }
}
