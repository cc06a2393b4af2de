/**
 * Organization Dashboard connectors: the merchant connector service, reached through the organization. A connector
 * or merchant of another organization is answered exactly like one that does not exist (404).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { MerchantConnectorSchema, MerchantSchema } from '../../../db/entities';
import type { DashboardConfig } from '../../../domain/platform/config';
import { errors } from '../../../domain/platform/errors';
import { consumeRateLimit } from '../../http/rate-limit';

/** The merchant_id, checked to be one of the organization's merchants. */
export async function organizationMerchant(
  em: EntityManager,
  organizationId: string,
  merchantId: string,
): Promise<string> {
  if ((await em.count(MerchantSchema, { id: merchantId, organizationId })) === 0) {
    throw errors.notFound('No such merchant in this organization', 'MERCHANT_NOT_FOUND');
  }
  return merchantId;
}

/** Every merchant id of the organization (the default scope of the connector list). */
export async function organizationMerchantIds(em: EntityManager, organizationId: string): Promise<string[]> {
  const merchants = await em.find(MerchantSchema, { organizationId }, { fields: ['id'] });
  return merchants.map((merchant) => merchant.id);
}

/** The merchant owning the connector, when that merchant belongs to the organization. */
export async function merchantOfConnector(
  em: EntityManager,
  organizationId: string,
  connectorId: string,
): Promise<string> {
  const connector = await em.findOne(MerchantConnectorSchema, { id: connectorId }, { fields: ['merchantId'] });
  const owned =
    connector !== null && (await em.count(MerchantSchema, { id: connector.merchantId, organizationId })) > 0;
  if (!owned) throw errors.notFound('No such connector');
  return connector.merchantId;
}

/** ISO 8601 bounds on received_at; an empty range (from after to) is a 400 rather than an always-empty page. */
export function receivedRange(query: { from?: string; to?: string }): { from?: Date; to?: Date } {
  const from = query.from ? new Date(query.from) : undefined;
  const to = query.to ? new Date(query.to) : undefined;
  if (from && to && from > to) throw errors.invalidValue('to', 'must not be before from');
  return { from, to };
}

/**
 * Spends one credential check of the connector's and of the organization's budget (429 past either). Each check is
 * an authenticated call to the provider: unbounded, a session could hammer a provider with the merchant's
 * credentials (and get them throttled or flagged there) or run up a worker queue.
 */
export async function spendCredentialCheck(
  em: EntityManager,
  config: DashboardConfig,
  organizationId: string,
  connectorId: string,
): Promise<void> {
  const budgets = [
    {
      bucket: `credential-check:connector:${connectorId}`,
      limit: config.credentialChecksPerConnector,
      of: 'connector',
    },
    {
      bucket: `credential-check:organization:${organizationId}`,
      limit: config.credentialChecksPerOrganization,
      of: 'organization',
    },
  ];
  for (const budget of budgets) {
    const state = await consumeRateLimit(em, budget.bucket, budget.limit, config.credentialCheckWindowSeconds);
    if (state.exceeded) {
      throw errors.rateLimited(state.resetSeconds, `Too many credential checks for this ${budget.of}; try again later`);
    }
  }
}
