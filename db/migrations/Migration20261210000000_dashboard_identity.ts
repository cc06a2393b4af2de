import { Migration } from '@mikro-orm/migrations';

/**
 * Dashboard identities: three independent user tables (platform admins, organization users, merchant
 * users — the same e-mail may exist in each), organization memberships, refresh-token families, password-reset
 * tokens. Every token is stored as its SHA-256 only; passwords as argon2id hashes.
 */
export class Migration20261210000000_dashboard_identity extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table admin_users (
        id text primary key,
        email text not null unique check (email = lower(email)),
        name text,
        role text not null check (role in ('super_admin', 'platform_admin', 'support')),
        password_hash text,
        must_change_password boolean not null default false,
        last_login_at timestamptz(3),
        created_at timestamptz(3) not null default now(),
        updated_at timestamptz(3) not null default now()
      );

      create table organization_users (
        id text primary key,
        email text not null unique check (email = lower(email)),
        name text,
        password_hash text,
        last_login_at timestamptz(3),
        created_at timestamptz(3) not null default now(),
        updated_at timestamptz(3) not null default now()
      );

      create table organization_members (
        id text primary key,
        organization_id text not null references organizations(id),
        user_id text not null references organization_users(id),
        role text not null check (role in ('owner', 'admin', 'viewer')),
        status text not null check (status in ('pending', 'active')),
        created_at timestamptz(3) not null default now(),
        updated_at timestamptz(3) not null default now(),
        constraint organization_members_org_user_key unique (organization_id, user_id)
      );
      create index organization_members_user_idx on organization_members (user_id);

      alter table merchant_users add column last_login_at timestamptz(3);
      alter table merchant_members add column inviter_name text;
      create index merchant_members_user_idx on merchant_members (user_id);

      -- One row per refresh token. A login starts a family; each refresh rotates (rotated_at) and adds the next
      -- token of the same family. Presenting a rotated token again revokes the whole family (RFC 9700 §4.14.2).
      create table refresh_tokens (
        id text primary key,
        family_id text not null,
        identity text not null check (identity in ('admin', 'organization', 'merchant')),
        user_id text not null,
        organization_id text,
        token_hash text not null unique,
        expires_at timestamptz(3) not null,
        family_expires_at timestamptz(3) not null,
        rotated_at timestamptz(3),
        revoked_at timestamptz(3),
        created_at timestamptz(3) not null default now()
      );
      create index refresh_tokens_family_idx on refresh_tokens (family_id);
      create index refresh_tokens_user_idx on refresh_tokens (identity, user_id);

      create table password_reset_tokens (
        id text primary key,
        identity text not null check (identity in ('admin', 'organization', 'merchant')),
        user_id text not null,
        token_hash text not null unique,
        expires_at timestamptz(3) not null,
        used_at timestamptz(3),
        created_at timestamptz(3) not null default now()
      );
      create index password_reset_tokens_user_idx on password_reset_tokens (identity, user_id);
    `);
  }

  override async down(): Promise<void> {
    this.addSql(`
      drop table password_reset_tokens, refresh_tokens, organization_members, organization_users, admin_users;
      drop index merchant_members_user_idx;
      alter table merchant_members drop column inviter_name;
      alter table merchant_users drop column last_login_at;
    `);
  }
}
