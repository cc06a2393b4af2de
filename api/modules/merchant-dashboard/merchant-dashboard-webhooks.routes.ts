/**
 * The merchant Dashboard's webhook endpoint management (owners and admins; a viewer's writes are refused before the
 * handler): add an endpoint, edit its URL, description and events, disable or enable it, rotate its signing secret,
 * and the event catalog to pick from. The same services as the API-key routes, with the signed-in person as actor.
 * The secret is in the answer of create and rotate only, as on the API.
 */
import { Type } from '@sinclair/typebox';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { AppDeps } from '../../deps';
import type { DashboardSession } from '../../http/dashboard-auth';
import { defineRoute } from '../../http/define-route';
import { Id, StrictObject } from '../../http/schema';
import { EVENT_CATALOG } from '../../../domain/events/events.outbox';
import {
  CreateWebhookConfigBody,
  UpdateWebhookConfigBody,
  WebhookConfigObject,
  WebhookConfigWithSecret,
} from '../webhooks/webhooks.schema';
import { presentWebhookConfig, presentWebhookConfigWithSecret } from '../webhooks/webhooks.presenter';
import {
  createWebhookConfig,
  rotateWebhookSecret,
  updateWebhookConfig,
  type WebhookContext,
} from '../webhooks/webhook-configs.service';
import { dashboardActor, organizationOfMerchant } from './merchant-dashboard.service';
import { merchantDashboard as auth } from './merchant-dashboard.routes';

const tags = ['Merchant Dashboard: webhooks'];
const Params = StrictObject({ webhook_id: Id('whc') });

async function contextOf(
  em: EntityManager,
  deps: AppDeps,
  merchantId: string,
  session: DashboardSession,
): Promise<WebhookContext> {
  return {
    keys: deps.config.encryptionKeys,
    env: deps.config.env,
    organizationId: await organizationOfMerchant(em, merchantId),
    actor: dashboardActor(session),
  };
}

export const merchantDashboardWebhookRoutes = [
  defineRoute({
    method: 'get',
    path: '/merchant/webhook-event-types',
    summary: 'The events an endpoint can subscribe to, with what triggers each',
    tags,
    auth,
    responses: { 200: Type.Array(StrictObject({ type: Type.String(), description: Type.String() })) },
    envelope: 'bare',
    async handler() {
      const types = Object.entries(EVENT_CATALOG).map(([type, description]) => ({ type, description }));
      return { status: 200, data: types };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/merchant/webhook-configs',
    summary: 'Add a webhook endpoint; the answer carries its signing secret, shown only here',
    tags,
    auth,
    body: CreateWebhookConfigBody,
    responses: { 201: WebhookConfigWithSecret },
    // The merchant's webhook configurations are at their cap.
    errors: [422],
    envelope: 'bare',
    idempotency: 'optional',
    async handler({ em, deps, merchantId, session, body }) {
      const ctx = await contextOf(em, deps, merchantId, session);
      const { config, secret } = await createWebhookConfig(em, merchantId, body, ctx);
      return { status: 201, data: presentWebhookConfigWithSecret(config, secret) };
    },
  }),
  defineRoute({
    method: 'patch',
    path: '/merchant/webhook-configs/:webhook_id',
    summary: 'Edit a webhook endpoint: url, description, event_filter (null: every event), is_active',
    tags,
    auth,
    params: Params,
    body: UpdateWebhookConfigBody,
    responses: { 200: WebhookConfigObject },
    envelope: 'bare',
    async handler({ em, deps, merchantId, session, params, body }) {
      const ctx = await contextOf(em, deps, merchantId, session);
      const config = await updateWebhookConfig(em, merchantId, params.webhook_id, body, ctx);
      return { status: 200, data: presentWebhookConfig(config) };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/merchant/webhook-configs/:webhook_id/rotate-secret',
    summary: 'Replace the signing secret (shown only in this answer); the previous one stops signing at once',
    tags,
    auth,
    params: Params,
    responses: { 200: WebhookConfigWithSecret },
    envelope: 'bare',
    async handler({ em, deps, merchantId, session, params }) {
      const ctx = await contextOf(em, deps, merchantId, session);
      const { config, secret } = await rotateWebhookSecret(em, merchantId, params.webhook_id, ctx);
      return { status: 200, data: presentWebhookConfigWithSecret(config, secret) };
    },
  }),
];
