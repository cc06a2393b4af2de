import { Migration } from '@mikro-orm/migrations';

/**
 * API keys get a lifecycle: a name for people, an expiry (a rolled key keeps working until then) and when
 * it was last used. The auth-change trigger now fires only when a column authentication reads changes: recording
 * last_used_at (at most once a minute per key) must not empty every process's auth cache.
 */
export class Migration20261225110000_api_key_lifecycle extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table api_keys
        add column name text,
        add column expires_at timestamptz(3),
        add column last_used_at timestamptz(3);
      drop trigger api_keys_notify_auth_change on api_keys;
      create trigger api_keys_notify_auth_change
        after update of status, revoked_at, expires_at, scopes, secret_hash, kind, merchant_id, organization_id
        or delete or truncate on api_keys
        for each statement execute function switchyard_notify_auth_change();
      create index api_keys_merchant_idx on api_keys (merchant_id, created_at desc);
    `);
  }

  override async down(): Promise<void> {
    this.addSql(`
      drop index api_keys_merchant_idx;
      drop trigger api_keys_notify_auth_change on api_keys;
      create trigger api_keys_notify_auth_change after update or delete or truncate on api_keys
        for each statement execute function switchyard_notify_auth_change();
      alter table api_keys drop column name, drop column expires_at, drop column last_used_at;
    `);
  }
}
