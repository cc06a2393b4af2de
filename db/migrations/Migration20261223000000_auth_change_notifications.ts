import { Migration } from '@mikro-orm/migrations';

/**
 * Every API process caches API keys and merchant ownership in memory (AuthCache, api/http/auth.ts). Any change to
 * those rows — a key revoked or rotated, a merchant deleted or moved, by the API, a script or plain SQL — NOTIFYs
 * `switchyard_auth` on commit, and every process empties its cache. One notification per statement: changes are
 * rare, and the payload names only the table (never a key hash).
 */
export class Migration20261223000000_auth_change_notifications extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create function switchyard_notify_auth_change() returns trigger language plpgsql as $$
      begin
        perform pg_notify('switchyard_auth', tg_table_name);
        return null;
      end;
      $$;
      create trigger api_keys_notify_auth_change after update or delete or truncate on api_keys
        for each statement execute function switchyard_notify_auth_change();
      create trigger merchants_notify_auth_change after update or delete or truncate on merchants
        for each statement execute function switchyard_notify_auth_change();
    `);
  }

  override async down(): Promise<void> {
    this.addSql(`
      drop trigger merchants_notify_auth_change on merchants;
      drop trigger api_keys_notify_auth_change on api_keys;
      drop function switchyard_notify_auth_change();
    `);
  }
}
