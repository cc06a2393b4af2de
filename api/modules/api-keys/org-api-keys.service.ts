/**
 * The organization's own API keys (merchant_id null), managed in the organization Dashboard: listed without secrets,
 * rolled and revoked as a merchant's keys are (api-keys.service.ts). Every query is scoped to the caller's
 * organization and to organization keys: a merchant's key or another organization's is a 404.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { ApiKeySchema, type ApiKey } from '../../../db/entities';
import type { KeyCreator } from '../../../domain/api-keys/api-keys.service';
import { errors } from '../../../domain/platform/errors';
import { offsetOf, type PageRequest } from '../../http/pagination';
import type { Actor } from '../../../domain/merchants/merchants.activity';
import { revokeKey, rollKey } from './api-keys.service';

export async function listOrganizationApiKeys(
  em: EntityManager,
  organizationId: string,
  page: PageRequest & { created_by?: string },
): Promise<{ items: ApiKey[]; total: number }> {
  const [items, total] = await em.findAndCount(
    ApiKeySchema,
    { organizationId, merchantId: null, ...(page.created_by ? { createdById: page.created_by } : {}) },
    { orderBy: { createdAt: 'desc', id: 'desc' }, limit: page.limit, offset: offsetOf(page) },
  );
  return { items, total };
}

async function ownKey(em: EntityManager, organizationId: string, keyId: string): Promise<ApiKey> {
  const key = await em.findOne(ApiKeySchema, { id: keyId, organizationId, merchantId: null });
  if (!key) throw errors.notFound('No such API key for this organization');
  return key;
}

/** Idempotent: revoking a revoked key answers it as it is (and records nothing more). */
export async function revokeOrganizationApiKey(em: EntityManager, organizationId: string, keyId: string, actor: Actor) {
  return revokeKey(em, await ownKey(em, organizationId, keyId), actor);
}

export async function rollOrganizationApiKey(
  em: EntityManager,
  organizationId: string,
  keyId: string,
  overlapHours: number,
  creator: KeyCreator,
): Promise<{ record: ApiKey; key: string }> {
  return rollKey(em, await ownKey(em, organizationId, keyId), overlapHours, creator);
}
