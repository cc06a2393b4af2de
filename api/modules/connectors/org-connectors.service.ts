/**
 * Organization Dashboard connectors: the merchant connector service, reached through the organization. A connector
 * or merchant of another organization is answered exactly like one that does not exist (404).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { MerchantConnectorSchema, MerchantSchema } from '../../../db/entities';
import { errors } from '../../../domain/platform/errors';

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
