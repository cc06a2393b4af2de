/** Webhook endpoint management (Document 1): bare responses, flat-meta list, nested under the merchant. */
import { Type } from '@sinclair/typebox';
import type { AppDeps } from '../../deps';
import type { ApiKeyAuth } from '../../http/auth';
import { defineRoute } from '../../http/define-route';
import { pagination } from '../../http/pagination';
import { actorOf } from '../../../domain/merchants/merchants.activity';
import {
  CreateWebhookConfigBody,
  ListWebhookConfigsQuery,
  MerchantParams,
  UpdateWebhookConfigBody,
  WebhookConfigObject,
  WebhookConfigWithSecret,
  WebhookParams,
} from './webhooks.schema';
import { presentWebhookConfig, presentWebhookConfigWithSecret } from './webhooks.presenter';
import {
  createWebhookConfig,
  deleteWebhookConfig,
  getWebhookConfig,
  listWebhookConfigs,
  rotateWebhookSecret,
  updateWebhookConfig,
  type WebhookContext,
} from './webhook-configs.service';

const tags = ['Webhooks'];
const keys = ['merchant', 'organization'] as const;
export const webhooksRead = { keys, scopes: ['webhooks:read'] } as const;
export const webhooksWrite = { keys, scopes: ['webhooks:write'] } as const;

const contextOf = (deps: AppDeps, auth: ApiKeyAuth): WebhookContext => ({
  keys: deps.config.encryptionKeys,
  env: deps.config.env,
  organizationId: auth.organizationId,
  actor: actorOf(auth),
});

export const webhookConfigRoutes = [
  defineRoute({
    method: 'get',
    path: '/merchants/:merchant_id/webhook-configs',
    summary: "List the merchant's webhook configurations, newest first",
    tags,
    auth: webhooksRead,
    params: MerchantParams,
    query: ListWebhookConfigsQuery,
    responses: { 200: Type.Array(WebhookConfigObject) },
    envelope: 'bare',
    pagination: 'flat',
    async handler({ em, merchantId, query }) {
      const { items, total } = await listWebhookConfigs(em, merchantId, query);
      return { status: 200, data: items.map(presentWebhookConfig), pagination: pagination(query, total) };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/merchants/:merchant_id/webhook-configs',
    summary: 'Create a webhook configuration; the response carries the signing secret, shown only here',
    description:
      'Registers an endpoint that receives events as POSTs signed the Standard Webhooks way (webhook-id, webhook-timestamp and webhook-signature headers: HMAC-SHA256 of `id.timestamp.body` with the whsec_ signing secret). Keep the secret from this response: it is never shown again (rotate it to get a new one). event_filter limits what is sent; omitted, every event is. A delivery that does not get a 2xx is retried with backoff; each attempt is listed under webhook-deliveries.',
    example: {
      url: 'https://shop.example.com/hooks/switchyard',
      description: 'Order system',
      event_filter: ['transaction.authorized', 'transaction.failed', 'transaction.refunded', 'subscription.renewed'],
    },
    tags,
    auth: webhooksWrite,
    params: MerchantParams,
    body: CreateWebhookConfigBody,
    responses: { 201: WebhookConfigWithSecret, 200: WebhookConfigWithSecret },
    // The merchant's webhook configurations are at their cap.
    errors: [422],
    envelope: 'bare',
    links: [
      // Rotation lives under /webhooks/, the merchant Dashboard reads under /merchant/.
      {
        to: 'post /merchants/:merchant_id/webhooks/:webhook_id/rotate-secret',
        from: { merchant_id: ':merchant_id', webhook_id: 'id' },
      },
      { to: 'get /merchant/webhook-configs/:webhook_id', from: { webhook_id: 'id' } },
      { to: 'post /merchant/webhook-configs/:webhook_id/redeliver', from: { webhook_id: 'id' } },
    ],
    idempotency: 'optional',
    async handler({ em, merchantId, body, deps, auth }) {
      const { config, secret } = await createWebhookConfig(em, merchantId, body, contextOf(deps, auth));
      return { status: 201, data: presentWebhookConfigWithSecret(config, secret) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/merchants/:merchant_id/webhook-configs/:webhook_id',
    summary: 'Get a webhook configuration (never its secret)',
    tags,
    auth: webhooksRead,
    params: WebhookParams,
    responses: { 200: WebhookConfigObject },
    envelope: 'bare',
    async handler({ em, merchantId, params }) {
      return { status: 200, data: presentWebhookConfig(await getWebhookConfig(em, merchantId, params.webhook_id)) };
    },
  }),
  defineRoute({
    method: 'patch',
    path: '/merchants/:merchant_id/webhook-configs/:webhook_id',
    summary: 'Update url, description, event_filter or is_active',
    tags,
    auth: webhooksWrite,
    params: WebhookParams,
    body: UpdateWebhookConfigBody,
    responses: { 200: WebhookConfigObject },
    envelope: 'bare',
    async handler({ em, merchantId, params, body, deps, auth }) {
      const config = await updateWebhookConfig(em, merchantId, params.webhook_id, body, contextOf(deps, auth));
      return { status: 200, data: presentWebhookConfig(config) };
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/merchants/:merchant_id/webhook-configs/:webhook_id',
    summary: 'Delete a webhook configuration; pending retries stop, delivery records stay',
    tags,
    auth: webhooksWrite,
    params: WebhookParams,
    responses: { 204: null },
    envelope: 'bare',
    async handler({ em, merchantId, params, deps, auth }) {
      await deleteWebhookConfig(em, merchantId, params.webhook_id, contextOf(deps, auth));
      return { status: 204 };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/merchants/:merchant_id/webhooks/:webhook_id/rotate-secret',
    summary:
      'Replace the signing secret (returned only here); the previous one signs alongside for one hour, then stops',
    tags,
    auth: webhooksWrite,
    params: WebhookParams,
    responses: { 200: WebhookConfigWithSecret },
    envelope: 'bare',
    async handler({ em, merchantId, params, deps, auth }) {
      const { config, secret } = await rotateWebhookSecret(em, merchantId, params.webhook_id, contextOf(deps, auth));
      return { status: 200, data: presentWebhookConfigWithSecret(config, secret) };
    },
  }),
];
