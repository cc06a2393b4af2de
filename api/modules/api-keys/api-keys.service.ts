/**
 * Issuing API keys. The key is returned once and only its hash is stored. (Key management endpoints are
 * "not shown" in the spec; keys are issued by the bootstrap CLI for now.)
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { ApiKeySchema, type ApiKey, type ApiKeyKind } from '../../../db/entities';
import { generateApiKey, redactKey } from '../../http/auth';
import { hashSecret } from '../../lib/crypto';
import { newId } from '../../lib/ids';
import { SCOPES, type Scope } from '../../http/scopes';

export interface IssueApiKeyInput {
  organizationId: string;
  /** Omit for an organization key. */
  merchantId?: string;
  kind: ApiKeyKind;
  scopes?: readonly Scope[];
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
    scopes: [...(input.scopes ?? SCOPES)],
    status: 'active',
    revokedAt: null,
  } as ApiKey);
  await em.flush();
  return { record, key };
}
