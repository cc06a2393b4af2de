import { Migration } from '@mikro-orm/migrations';

/**
 * Idempotent requests run in phases (claim and commit; work with no transaction open; store and commit), so a
 * key row can be claimed with no response yet: `claim_id` names the request holding it and `lease_until` is when
 * a retry with the same fingerprint may take it over (the holder died between phases).
 * Transactions record the capture or void that owns their pending move, so a second one is refused while it runs.
 */
export class Migration20261201000000_request_phases extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table idempotency_keys add column claim_id text, add column lease_until timestamptz(3);
      alter table transactions add column pending_operation_id text;
    `);
  }

  override async down(): Promise<void> {
    this.addSql(`
      alter table idempotency_keys drop column claim_id, drop column lease_until;
      alter table transactions drop column pending_operation_id;
    `);
  }
}
