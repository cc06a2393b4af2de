import { Migration } from '@mikro-orm/migrations';

/**
 * Merchant users, memberships and the activity log; the payment-provider catalog (seeded); merchant connectors
 * (credentials encrypted); routing profiles and their node trees.
 */
export class Migration20261121020000_merchants_connectors_routing extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      -- People who sign in to a merchant Dashboard; unique by e-mail within an organization.
      create table merchant_users (
        id text primary key,
        organization_id text not null references organizations(id),
        email text not null check (email = lower(email)),
        name text,
        password_hash text,
        created_at timestamptz(3) not null default now(),
        updated_at timestamptz(3) not null default now(),
        constraint merchant_users_org_email_key unique (organization_id, email)
      );

      create table merchant_members (
        id text primary key,
        merchant_id text not null references merchants(id),
        user_id text not null references merchant_users(id),
        role text not null check (role in ('owner', 'admin', 'viewer')),
        status text not null check (status in ('pending', 'active')),
        -- SHA-256 of the invitation token; the token itself is only ever sent to the invitee.
        invitation_token_hash text unique,
        invitation_expires_at timestamptz(3),
        joined_at timestamptz(3),
        created_at timestamptz(3) not null default now(),
        updated_at timestamptz(3) not null default now(),
        constraint merchant_members_merchant_user_key unique (merchant_id, user_id)
      );

      -- One row per administrative action: what changed, by whom (which key or user), when.
      create table merchant_activities (
        id text primary key,
        organization_id text not null references organizations(id),
        merchant_id text not null,
        action text not null,
        actor_type text not null check (actor_type in ('api_key', 'dashboard_user', 'system')),
        actor_id text,
        changes jsonb,
        created_at timestamptz(3) not null default now()
      );
      create index merchant_activities_merchant_idx on merchant_activities (merchant_id, created_at desc, id desc);

      create table payment_providers (
        id text primary key,
        slug text not null unique,
        display_name text not null,
        logo text,
        is_active boolean not null default true,
        supported_auth_methods text[],
        oauth_authorization_url text,
        oauth_token_url text,
        oauth_scopes text,
        oauth_pkce_required boolean not null default false,
        supported_card_brands text[] not null default '{}',
        supported_payment_methods text[] not null default '{}',
        supported_currencies text[] not null default '{}',
        supported_countries text[] not null default '{}',
        supports_installments boolean not null default false,
        created_at timestamptz(3) not null default now()
      );

      create table merchant_connectors (
        id text primary key,
        merchant_id text not null references merchants(id),
        provider_slug text not null references payment_providers(slug),
        name text not null check (char_length(name) <= 100),
        country_code text,
        auth_method text not null check (auth_method in ('api_key', 'oauth2')),
        is_test_mode boolean not null,
        is_active boolean not null default true,
        -- Envelope-encrypted JSON (api/lib/crypto.ts); never returned.
        credentials_encrypted text not null,
        -- The per-connector token carried by webhook_url: encrypted (to show the URL) and hashed (to look it up).
        webhook_token_encrypted text not null,
        webhook_token_hash text not null unique,
        webhook_secret_encrypted text,
        config jsonb,
        created_at timestamptz(3) not null default now(),
        updated_at timestamptz(3) not null default now()
      );
      create index merchant_connectors_merchant_idx on merchant_connectors (merchant_id, created_at desc, id desc);

      create table routing_profiles (
        id text primary key,
        merchant_id text not null references merchants(id),
        name text not null,
        is_active boolean not null default false,
        version integer not null default 1,
        payment_method text not null default '*'
          check (payment_method in ('credit_card', 'debit_card', 'pix', 'boleto', 'wallet', '*')),
        default_merchant_connector_id text not null references merchant_connectors(id),
        created_at timestamptz(3) not null default now(),
        updated_at timestamptz(3) not null default now()
      );
      create unique index routing_profiles_active_method_key on routing_profiles (merchant_id, payment_method) where is_active;
      create index routing_profiles_merchant_idx on routing_profiles (merchant_id, created_at desc, id desc);

      create table routing_nodes (
        id text primary key,
        routing_profile_id text not null references routing_profiles(id) on delete cascade,
        parent_node_id text references routing_nodes(id) on delete cascade,
        branch text check (branch in ('then', 'else')),
        position integer not null check (position >= 0),
        node_type text not null check (node_type in ('condition', 'action')),
        condition_field text
          check (condition_field in ('currency', 'amount', 'card_brand', 'bin_country', 'is_recurring', 'math/random', 'installments')),
        condition_operator text check (condition_operator in ('eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'in', 'not_in', 'regex')),
        condition_value jsonb,
        merchant_connector_id text references merchant_connectors(id),
        require_3ds text not null default 'never' check (require_3ds in ('never', 'if_supported', 'always')),
        is_active boolean not null default true,
        created_at timestamptz(3) not null default now(),
        updated_at timestamptz(3) not null default now(),
        constraint routing_nodes_branch_with_parent check ((parent_node_id is null) = (branch is null)),
        constraint routing_nodes_action_connector check ((node_type = 'action') = (merchant_connector_id is not null)),
        -- Deferred so a reorder can move siblings through each other's positions inside one transaction.
        constraint routing_nodes_sibling_position_key unique nulls not distinct (routing_profile_id, parent_node_id, branch, position)
          deferrable initially deferred
      );
      create index routing_nodes_connector_idx on routing_nodes (merchant_connector_id);
    `);
    this.seedProviders();
  }

  /** The provider catalog. provider_e is listed but inactive: not offered for new connectors. */
  private seedProviders(): void {
    const card = ['visa', 'mastercard', 'amex', 'elo', 'hipercard', 'discover', 'diners', 'jcb'];
    const rows = [
      {
        id: 'pp_provider_a',
        slug: 'provider_a',
        name: 'Provider A',
        active: true,
        auth: ['api_key'],
        oauth: null,
        brands: ['visa', 'mastercard', 'amex', 'discover', 'diners', 'jcb'],
        methods: ['card', 'wallet'],
        currencies: ['USD', 'EUR', 'GBP', 'BRL', 'MXN', 'CAD', 'AUD'],
        countries: ['US', 'GB', 'DE', 'FR', 'BR', 'MX', 'CA', 'AU'],
        installments: false,
      },
      {
        id: 'pp_provider_b',
        slug: 'provider_b',
        name: 'Provider B',
        active: true,
        auth: ['api_key'],
        oauth: null,
        brands: ['visa', 'mastercard', 'amex', 'elo', 'hipercard'],
        methods: ['card', 'pix', 'boleto'],
        currencies: ['BRL', 'USD'],
        countries: ['BR'],
        installments: true,
      },
      {
        id: 'pp_provider_c',
        slug: 'provider_c',
        name: 'Provider C',
        active: true,
        auth: ['api_key', 'oauth2'],
        oauth: {
          authorize: 'https://connect.provider-c.example/oauth/authorize',
          token: 'https://connect.provider-c.example/oauth/token',
          scopes: 'payments:write payments:read',
          pkce: true,
        },
        brands: ['visa', 'mastercard', 'elo'],
        methods: ['card', 'pix', 'wallet'],
        currencies: ['BRL', 'ARS', 'CLP', 'COP', 'MXN', 'PEN'],
        countries: ['BR', 'AR', 'CL', 'CO', 'MX', 'PE'],
        installments: true,
      },
      {
        id: 'pp_provider_d',
        slug: 'provider_d',
        name: 'Provider D',
        active: true,
        auth: ['api_key'],
        oauth: null,
        brands: ['visa', 'mastercard'],
        methods: ['card'],
        currencies: ['USD', 'EUR', 'GBP'],
        countries: ['US', 'GB', 'DE', 'FR', 'ES', 'IT'],
        installments: false,
      },
      {
        id: 'pp_provider_e',
        slug: 'provider_e',
        name: 'Provider E',
        active: false,
        auth: ['oauth2'],
        oauth: {
          authorize: 'https://auth.provider-e.example/authorize',
          token: 'https://auth.provider-e.example/token',
          scopes: 'charges',
          pkce: false,
        },
        brands: ['visa', 'mastercard'],
        methods: ['card', 'pix', 'boleto'],
        currencies: ['BRL'],
        countries: ['BR'],
        installments: true,
      },
      {
        id: 'pp_checkout',
        slug: 'checkout',
        name: 'Checkout',
        active: true,
        auth: ['api_key'],
        oauth: null,
        brands: card,
        methods: ['card', 'wallet'],
        currencies: ['USD', 'EUR', 'GBP', 'BRL', 'AED', 'SAR', 'SGD', 'HKD', 'JPY'],
        countries: ['US', 'GB', 'DE', 'FR', 'BR', 'AE', 'SA', 'SG', 'HK', 'JP'],
        installments: false,
      },
    ];
    for (const row of rows) {
      const values = [
        row.id,
        row.slug,
        row.name,
        null,
        row.active,
        row.auth,
        row.oauth?.authorize ?? null,
        row.oauth?.token ?? null,
        row.oauth?.scopes ?? null,
        row.oauth?.pkce ?? false,
        row.brands,
        row.methods,
        row.currencies,
        row.countries,
        row.installments,
      ];
      this.addSql(
        `insert into payment_providers (id, slug, display_name, logo, is_active, supported_auth_methods,
           oauth_authorization_url, oauth_token_url, oauth_scopes, oauth_pkce_required, supported_card_brands,
           supported_payment_methods, supported_currencies, supported_countries, supports_installments)
         values (${values.map(literal).join(', ')});`,
      );
    }
  }

  override async down(): Promise<void> {
    this
      .addSql(`drop table routing_nodes, routing_profiles, merchant_connectors, payment_providers, merchant_activities,
      merchant_members, merchant_users;`);
  }
}

/** A SQL literal for the constant seed values above (addSql takes no bind parameters). */
function literal(value: string | boolean | null | string[]): string {
  if (value === null) return 'null';
  if (typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return `array[${value.map(literal).join(', ')}]::text[]`;
  return `'${value.replace(/'/g, "''")}'`;
}
