import { Migration } from '@mikro-orm/migrations';

/**
 * Who minted each API key: a Dashboard user or an API key (the organization key), so a member's keys can be found
 * and revoked when they leave. Keys made before this (and by the bootstrap CLI) have no recorded creator.
 */
export class Migration20261245000000_api_key_creator extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table api_keys
        add column created_by_type text check (created_by_type in ('api_key', 'dashboard_user')),
        add column created_by_id text,
        add constraint api_keys_created_by_check check ((created_by_type is null) = (created_by_id is null));
    `);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table api_keys drop column created_by_type, drop column created_by_id;`);
  }
}
