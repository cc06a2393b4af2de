import type { ApiKey } from '../../../db/entities';

const iso = (date: Date | null) => date?.toISOString() ?? null;

/** expired is derived (expires_at passed); revoked is stored. */
export function presentApiKey(key: ApiKey, now = new Date()) {
  const [prefix, lastFour] = key.redacted.split('…');
  const expired = key.expiresAt !== null && key.expiresAt.getTime() <= now.getTime();
  return {
    id: key.id,
    merchant_id: key.merchantId as string,
    name: key.name,
    kind: key.kind,
    prefix,
    last_four: lastFour,
    scopes: [...key.scopes],
    status: key.status === 'revoked' ? ('revoked' as const) : expired ? ('expired' as const) : ('active' as const),
    created_at: key.createdAt.toISOString(),
    last_used_at: iso(key.lastUsedAt),
    expires_at: iso(key.expiresAt),
    revoked_at: iso(key.revokedAt),
    created_by: key.createdByType ? { type: key.createdByType, id: key.createdById as string } : null,
  };
}

export const presentApiKeyWithSecret = (key: ApiKey, secret: string) => ({ ...presentApiKey(key), key: secret });

/** An organization's own key: organization_id in place of merchant_id. */
export function presentOrganizationApiKey(key: ApiKey, now = new Date()) {
  const { id, merchant_id: _merchant, ...shared } = presentApiKey(key, now);
  return { id, organization_id: key.organizationId, ...shared };
}

export const presentOrganizationApiKeyWithSecret = (key: ApiKey, secret: string) => ({
  ...presentOrganizationApiKey(key),
  key: secret,
});
