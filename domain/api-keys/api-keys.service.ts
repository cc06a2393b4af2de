/**
 * Issuing API keys. The key is returned once and only its hash is stored. Keys are issued by the bootstrap CLI and
 * by the key management API (api/modules/api-keys; its design is in docs/api-decisions.md, the spec shows none).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { ApiKeySchema, type ApiKey, type ApiKeyKind } from '../../db/entities';
import { hashSecret } from '../platform/crypto';
import { newId, randomBase62 } from '../platform/ids';
import { SCOPES, type KeyLevel, type Scope } from './api-keys.scopes';

/** Who mints a key: the key of the management API call, or the signed-in Dashboard user. */
export interface KeyCreator {
  type: 'api_key' | 'dashboard_user';
  id: string;
}

/** sk_live_mer_<32 base62>: kind, level, then the random part (authentication checks the format: KEY_PATTERN). */
export function generateApiKey(kind: ApiKeyKind, level: KeyLevel): string {
  return `${kind === 'secret' ? 'sk' : 'pk'}_live_${level === 'organization' ? 'org' : 'mer'}_${randomBase62(32)}`;
}

export function redactKey(key: string): string {
  return `${key.slice(0, 12)}…${key.slice(-4)}`;
}

export interface IssueApiKeyInput {
  organizationId: string;
  /** Omit for an organization key. */
  merchantId?: string;
  kind: ApiKeyKind;
  /** Default: every scope for a secret key, none for a public key (browser routes need none). */
  scopes?: readonly Scope[];
  name?: string | null;
  expiresAt?: Date | null;
  /** Omitted by the bootstrap CLI, which has no one to name. */
  createdBy?: KeyCreator;
}

export async function issueApiKey(
  em: EntityManager,
  input: IssueApiKeyInput,
): Promise<{ record: ApiKey; key: string }> {
  const key = generateApiKey(input.kind, input.merchantId ? 'merchant' : 'organization');
  const record = em.create(ApiKeySchema, {
    id: newId('ak'),
    organizationId: input.organizationId,
    merchantId: input.merchantId ?? null,
    kind: input.kind,
    secretHash: hashSecret(key),
    redacted: redactKey(key),
    scopes: [...(input.scopes ?? (input.kind === 'public' ? [] : SCOPES))],
    status: 'active',
    name: input.name ?? null,
    expiresAt: input.expiresAt ?? null,
    lastUsedAt: null,
    revokedAt: null,
    createdByType: input.createdBy?.type ?? null,
    createdById: input.createdBy?.id ?? null,
  } as ApiKey);
  await em.flush();
  return { record, key };
}
