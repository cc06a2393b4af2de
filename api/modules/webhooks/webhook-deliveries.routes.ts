/** Delivery records, plus manual redeliver and recover (beyond the spec; see docs/api-decisions.md). */
import { Type } from '@sinclair/typebox';
import type { AppDeps } from '../../deps';
import type { ApiKeyAuth } from '../../http/auth';
import { defineRoute } from '../../http/define-route';
import { pagination } from '../../http/pagination';
import { actorOf } from '../../../domain/merchants/merchants.activity';
import {
  DeliveryRecordObject,
  ListDeliveriesQuery,
  MerchantParams,
  RecoverBody,
  RecoveryObject,
  RedeliverBody,
  RedeliveryObject,
  WebhookParams,
} from './webhooks.schema';
import { presentDelivery } from './webhooks.presenter';
import {
  listDeliveries,
  recoverFailedDeliveries,
  redeliverEvent,
  type ManualContext,
} from './webhook-deliveries.service';
import { webhookConfigRoutes, webhooksRead, webhooksWrite } from './webhook-configs.routes';

const tags = ['Webhooks'];

const manualContext = (deps: AppDeps, auth: ApiKeyAuth): ManualContext => ({
  client: deps.temporal.client,
  organizationId: auth.organizationId,
  actor: actorOf(auth),
});

const webhookDeliveryRoutes = [
  defineRoute({
    method: 'get',
    path: '/merchants/:merchant_id/webhook-deliveries',
    summary: 'List delivery attempts, newest first (status accepts several values)',
    tags,
    auth: webhooksRead,
    params: MerchantParams,
    query: ListDeliveriesQuery,
    responses: { 200: Type.Array(DeliveryRecordObject) },
    envelope: 'bare',
    pagination: 'flat',
    async handler({ em, merchantId, query }) {
      const { items, total } = await listDeliveries(em, merchantId, query);
      return {
        status: 200,
        data: items.map(({ delivery, event }) => presentDelivery(delivery, event)),
        pagination: pagination(query, total),
      };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/merchants/:merchant_id/webhook-configs/:webhook_id/redeliver',
    summary: 'Send one event to this endpoint again (one attempt, asynchronous)',
    tags,
    auth: webhooksWrite,
    params: WebhookParams,
    body: RedeliverBody,
    responses: { 202: RedeliveryObject },
    envelope: 'bare',
    // 422 business_rule_error: the endpoint is inactive.
    errors: [422],
    async handler({ em, merchantId, params, body, deps, auth }) {
      const result = await redeliverEvent(em, merchantId, params.webhook_id, body.event_id, manualContext(deps, auth));
      return { status: 202, data: result };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/merchants/:merchant_id/webhook-configs/:webhook_id/recover',
    summary: 'Send again every event whose delivery to this endpoint failed since a time (one attempt each)',
    tags,
    auth: webhooksWrite,
    params: WebhookParams,
    body: RecoverBody,
    responses: { 202: RecoveryObject },
    envelope: 'bare',
    // 422 business_rule_error: the endpoint is inactive.
    errors: [422],
    async handler({ em, merchantId, params, body, deps, auth }) {
      const result = await recoverFailedDeliveries(em, merchantId, params.webhook_id, body, manualContext(deps, auth));
      return { status: 202, data: result };
    },
  }),
];

export const webhookRoutes = [...webhookConfigRoutes, ...webhookDeliveryRoutes];
