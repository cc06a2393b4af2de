/**
 * A connector's inbound and invalid provider-webhook logs, one page, for the organization and the merchant
 * Dashboards alike (each route checks first that the connector is the caller's).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Static } from '@sinclair/typebox';
import { listReceipts } from '../../../db/repositories/provider-webhook-receipts.repository';
import { offsetOf, pagination } from '../../http/pagination';
import { receivedRange } from './org-connectors.service';
import type { ListInboundWebhooksQuery, ListInvalidWebhooksQuery } from './org-connectors.schema';
import { presentInboundWebhook, presentInvalidWebhook } from './webhook-receipts.presenter';

export async function inboundWebhooksPage(
  em: EntityManager,
  connectorId: string,
  query: Static<typeof ListInboundWebhooksQuery>,
) {
  const { items, total } = await listReceipts(
    em,
    { connectorId, kind: 'inbound', statuses: query.status, ...receivedRange(query) },
    { limit: query.limit, offset: offsetOf(query) },
  );
  return { status: 200, data: items.map(presentInboundWebhook), pagination: pagination(query, total) };
}

export async function invalidWebhooksPage(
  em: EntityManager,
  connectorId: string,
  query: Static<typeof ListInvalidWebhooksQuery>,
) {
  const { items, total } = await listReceipts(
    em,
    { connectorId, kind: 'invalid', ...receivedRange(query) },
    { limit: query.limit, offset: offsetOf(query) },
  );
  return { status: 200, data: items.map(presentInvalidWebhook), pagination: pagination(query, total) };
}
