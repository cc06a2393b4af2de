/**
 * Delivery records (one per attempt) and the two manual actions beyond the spec: redeliver one event to one
 * endpoint, and recover every event whose delivery to an endpoint failed since a time. Both start new
 * workflows with their own ids, so they never collide with (or are swallowed by) the automatic delivery.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Client } from '@temporalio/client';
import { EventSchema, WebhookDeliverySchema, type EventRecord, type WebhookDelivery } from '../../../db/entities';
import { errors } from '../../../domain/platform/errors';
import { offsetOf, type PageRequest } from '../../http/pagination';
import { recordActivity, type Actor } from '../../../domain/merchants/merchants.activity';
import { recoverableEventCount } from '../../../db/repositories/webhooks.repository';
import { getWebhookConfig } from './webhook-configs.service';
import { storedDeliveryStatuses } from './delivery-status.rules';
import { startRecovery, startRedelivery } from '../../temporal/webhooks';

export interface DeliveryFilter extends PageRequest {
  status?: string[];
  from?: string;
  to?: string;
  webhook_id?: string;
  event_id?: string;
  livemode?: boolean;
}

export async function listDeliveries(
  em: EntityManager,
  merchantId: string,
  filter: DeliveryFilter,
): Promise<{ items: { delivery: WebhookDelivery; event: EventRecord }[]; total: number }> {
  if (filter.from && filter.to && Date.parse(filter.from) > Date.parse(filter.to)) {
    throw errors.invalidValue('from', 'must not be after to');
  }
  const where = {
    merchantId,
    ...(filter.status ? { status: { $in: storedDeliveryStatuses(filter.status) } } : {}),
    ...(filter.webhook_id ? { webhookConfigId: filter.webhook_id } : {}),
    ...(filter.event_id ? { eventId: filter.event_id } : {}),
    ...(filter.livemode !== undefined ? { livemode: filter.livemode } : {}),
    ...(filter.from || filter.to
      ? {
          createdAt: {
            ...(filter.from ? { $gte: new Date(filter.from) } : {}),
            ...(filter.to ? { $lte: new Date(filter.to) } : {}),
          },
        }
      : {}),
  };
  const [deliveries, total] = await em.findAndCount(WebhookDeliverySchema, where, {
    orderBy: { createdAt: 'desc', id: 'desc' },
    limit: filter.limit,
    offset: offsetOf(filter),
  });
  const events = await em.find(EventSchema, { id: { $in: [...new Set(deliveries.map((d) => d.eventId))] } });
  const byId = new Map(events.map((event) => [event.id, event]));
  return {
    items: deliveries.map((delivery) => ({ delivery, event: byId.get(delivery.eventId) as EventRecord })),
    total,
  };
}

export interface ManualContext {
  client: Client;
  organizationId: string;
  actor: Actor;
}

async function activeConfig(em: EntityManager, merchantId: string, configId: string) {
  const config = await getWebhookConfig(em, merchantId, configId);
  if (!config.isActive) {
    throw errors.businessRule(
      'WEBHOOK_CONFIG_INACTIVE',
      'The webhook configuration is inactive; set is_active true first',
      { webhook_id: config.id },
    );
  }
  return config;
}

/** Runs inside the request transaction: a failed workflow start rolls back the activity record. */
export async function redeliverEvent(
  em: EntityManager,
  merchantId: string,
  configId: string,
  eventId: string,
  ctx: ManualContext,
) {
  const config = await activeConfig(em, merchantId, configId);
  const event = await em.findOne(EventSchema, { id: eventId, merchantId });
  if (!event) throw errors.invalidValue('event_id', 'must be an event of this merchant');
  if (config.eventFilter && !config.eventFilter.includes(event.type)) {
    throw errors.businessRule(
      'EVENT_NOT_SUBSCRIBED',
      `The configuration's event_filter does not include ${event.type}`,
      {
        webhook_id: config.id,
        event_type: event.type,
      },
    );
  }
  recordActivity(em, {
    organizationId: ctx.organizationId,
    merchantId,
    action: 'webhook_config.redelivery_requested',
    actor: ctx.actor,
    changes: { webhook_id: config.id, event_id: event.id },
  });
  await em.flush();
  await startRedelivery(ctx.client, { eventId: event.id, configId: config.id, merchantId, eventType: event.type });
  return { merchant_webhook_config_id: config.id, event_id: event.id, status: 'queued' as const };
}

export async function recoverFailedDeliveries(
  em: EntityManager,
  merchantId: string,
  configId: string,
  range: { since: string; until?: string },
  ctx: ManualContext,
  now: Date = new Date(),
) {
  const config = await activeConfig(em, merchantId, configId);
  const since = new Date(range.since);
  const until = range.until ? new Date(range.until) : now;
  if (since > until)
    throw errors.invalidValue('since', range.until ? 'must not be after until' : 'must not be in the future');
  const count = await recoverableEventCount(em, { configId: config.id, since, until });
  recordActivity(em, {
    organizationId: ctx.organizationId,
    merchantId,
    action: 'webhook_config.recovery_requested',
    actor: ctx.actor,
    changes: { webhook_id: config.id, since: since.toISOString(), until: until.toISOString(), events: count },
  });
  await em.flush();
  if (count > 0) await startRecovery(ctx.client, { merchantId, configId: config.id, since, until });
  return {
    merchant_webhook_config_id: config.id,
    since: since.toISOString(),
    until: until.toISOString(),
    events_queued: count,
  };
}
