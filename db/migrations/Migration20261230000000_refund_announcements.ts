import { Migration } from '@mikro-orm/migrations';

/**
 * A refund that succeeds while another refund of the transaction is still pending moves nothing (the
 * transaction stays refund_pending), so its success is announced when the last pending refund settles — also when
 * that last one fails. `announced_at` records that a succeeded refund's transaction.refunded/partially_refunded was
 * recorded. Refunds that succeeded before this change were announced, except those of a transaction still
 * refund_pending: those are announced when its last pending refund settles.
 */
export class Migration20261230000000_refund_announcements extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table refunds add column announced_at timestamptz(3);
      update refunds r set announced_at = r.updated_at
       where r.status = 'succeeded'
         and not exists (select 1 from transactions t where t.id = r.transaction_id and t.status = 'refund_pending');
    `);
  }

  override async down(): Promise<void> {
    this.addSql('alter table refunds drop column announced_at;');
  }
}
