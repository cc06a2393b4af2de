import { EntitySchema } from '@mikro-orm/core';

/** secret = sk_live_…, public = pk_live_… ; organization keys have no merchant. */
export type ApiKeyKind = 'secret' | 'public';

export interface ApiKey {
  id: string;
  organizationId: string;
  merchantId: string | null;
  kind: ApiKeyKind;
  /** SHA-256 of the whole key; the key itself is shown once, at creation, and never stored. */
  secretHash: string;
  /** Non-secret hint for people: prefix and last four characters. */
  redacted: string;
  scopes: string[];
  status: 'active' | 'revoked';
  /** For people (the key management API); keys from the bootstrap CLI have none. */
  name: string | null;
  /** After this the key is refused (a rolled key's overlap ends); null = no expiry. */
  expiresAt: Date | null;
  /** Recorded at most once a minute per key (api/http/auth.ts). */
  lastUsedAt: Date | null;
  createdAt: Date;
  revokedAt: Date | null;
  /** Who minted the key (the management API or the Dashboard); null for bootstrap keys and keys made before. */
  createdByType: 'api_key' | 'dashboard_user' | null;
  /** The minting API key's id or Dashboard user's id. */
  createdById: string | null;
}

export const ApiKeySchema = new EntitySchema<ApiKey>({
  name: 'ApiKey',
  tableName: 'api_keys',
  properties: {
    id: { type: 'string', primary: true },
    organizationId: { type: 'string' },
    merchantId: { type: 'string', nullable: true },
    kind: { type: 'string' },
    secretHash: { type: 'string', hidden: true },
    redacted: { type: 'string' },
    scopes: { type: 'string[]', columnType: 'text[]' },
    status: { type: 'string', default: 'active' },
    createdAt: { type: 'Date', columnType: 'timestamptz(3)', onCreate: () => new Date() },
    revokedAt: { type: 'Date', columnType: 'timestamptz(3)', nullable: true },
    name: { type: 'string', nullable: true },
    expiresAt: { type: 'Date', columnType: 'timestamptz(3)', nullable: true },
    lastUsedAt: { type: 'Date', columnType: 'timestamptz(3)', nullable: true },
    createdByType: { type: 'string', nullable: true },
    createdById: { type: 'string', nullable: true },
  },
});
