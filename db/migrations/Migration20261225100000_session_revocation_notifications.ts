import { Migration } from '@mikro-orm/migrations';

/**
 * Dashboard access tokens are checked against their refresh-token family on every request (a signed-out or
 * revoked session's access token stops working at once, not at its expiry). The API caches "this family is live"
 * in the auth cache; a revocation NOTIFYs `switchyard_auth` like an API-key change, so every process forgets it.
 * Only the revocation (revoked_at going from null to set) notifies: a rotation on refresh does not, and housekeeping
 * deletes only families already revoked or expired. pg_notify folds identical payloads of one transaction into one.
 */
export class Migration20261225100000_session_revocation_notifications extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create trigger refresh_tokens_notify_revocation after update of revoked_at on refresh_tokens
        for each row when (old.revoked_at is null and new.revoked_at is not null)
        execute function switchyard_notify_auth_change();
    `);
  }

  override async down(): Promise<void> {
    this.addSql(`
      drop trigger refresh_tokens_notify_revocation on refresh_tokens;
    `);
  }
}
