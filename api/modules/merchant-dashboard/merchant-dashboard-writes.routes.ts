/**
 * Merchant Dashboard endpoints that act as the signed-in person (recorded as the actor) or check a connector of
 * the merchant named by x-merchant-id: add a connector, test its credentials, read its inbound and refused
 * provider webhooks, send a webhook event again. The same services as the API-key and organization routes.
 */
import { Type } from '@sinclair/typebox';
import { defineRoute } from '../../http/define-route';
import { runCredentialCheck } from '../../temporal/transactions';
import { spendCredentialCheck } from '../connectors/org-connectors.service';
import { ConnectorObject, CreateConnectorBody } from '../connectors/connectors.schema';
import { connectorPresenter } from '../connectors/connectors.presenter';
import { connectorContext, createConnector, getConnector, releaseBillingHolds } from '../connectors/connectors.service';
import {
  CredentialCheckObject,
  InboundWebhookObject,
  InvalidWebhookObject,
  ListInboundWebhooksQuery,
  ListInvalidWebhooksQuery,
  OrgConnectorParams,
} from '../connectors/org-connectors.schema';
import { inboundWebhooksPage, invalidWebhooksPage } from '../connectors/webhook-receipts.service';
import { RedeliverBody, RedeliveryObject } from '../webhooks/webhooks.schema';
import { redeliverEvent } from '../webhooks/webhook-deliveries.service';
import { StrictObject, Id } from '../../http/schema';
import { dashboardActor, organizationOfMerchant } from './merchant-dashboard.service';
import { merchantDashboard as auth } from './merchant-dashboard.routes';

const connectorTags = ['Merchant Dashboard: connectors'];

export const merchantDashboardWriteRoutes = [
  defineRoute({
    method: 'post',
    path: '/merchant/connectors',
    summary: 'Add a connector to the merchant (credentials validated per provider, encrypted, never returned)',
    tags: connectorTags,
    auth,
    body: CreateConnectorBody,
    responses: { 201: ConnectorObject },
    // 422 TEST_CONNECTORS_DISABLED: a test-mode connector in production while the organization has them off.
    errors: [422],
    envelope: 'bare',
    idempotency: 'optional',
    async handler({ em, merchantId, session, body, deps }) {
      const context = connectorContext(deps, await organizationOfMerchant(em, merchantId), dashboardActor(session));
      const connector = await createConnector(em, merchantId, body, context);
      await releaseBillingHolds(em, deps, connector);
      return { status: 201, data: connectorPresenter(deps)(connector) };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/merchant/connectors/:connector_id/test',
    summary:
      "Check the stored credentials with the provider's own check (run by a worker); 502 CREDENTIAL_CHECK_UNAVAILABLE when no verdict came",
    tags: connectorTags,
    auth,
    params: OrgConnectorParams,
    responses: { 200: CredentialCheckObject },
    envelope: 'bare',
    waitsOnWorkflow: true,
    async handler({ em, merchantId, params, deps }) {
      await getConnector(em, merchantId, params.connector_id);
      // Each check is an authenticated provider call: the same budgets as the organization's route, so the
      // Dashboard is no cheaper way to test stolen credentials against a provider.
      const organizationId = await organizationOfMerchant(em, merchantId);
      await spendCredentialCheck(em, deps.config.dashboard, organizationId, params.connector_id);
      const verdict = await runCredentialCheck(
        deps.temporal.client,
        { merchantId, connectorId: params.connector_id },
        deps.config.workflowWaitMs,
      );
      return {
        status: 200,
        data: { ok: verdict.ok, provider_message: verdict.message, checked_at: verdict.checkedAt },
      };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/merchant/connectors/:connector_id/webhooks/inbounds',
    summary: "The connector's received provider webhooks and what became of each, newest first (kept 30 days)",
    tags: connectorTags,
    auth,
    params: OrgConnectorParams,
    query: ListInboundWebhooksQuery,
    responses: { 200: Type.Array(InboundWebhookObject) },
    envelope: 'bare',
    pagination: 'flat',
    async handler({ em, merchantId, params, query }) {
      await getConnector(em, merchantId, params.connector_id);
      return inboundWebhooksPage(em, params.connector_id, query);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/merchant/connectors/:connector_id/webhooks/invalid',
    summary: "Deliveries to the connector's webhook URL that were refused, with the reason, newest first",
    tags: connectorTags,
    auth,
    params: OrgConnectorParams,
    query: ListInvalidWebhooksQuery,
    responses: { 200: Type.Array(InvalidWebhookObject) },
    envelope: 'bare',
    pagination: 'flat',
    async handler({ em, merchantId, params, query }) {
      await getConnector(em, merchantId, params.connector_id);
      return invalidWebhooksPage(em, params.connector_id, query);
    },
  }),
  defineRoute({
    method: 'post',
    path: '/merchant/webhook-configs/:webhook_id/redeliver',
    summary: 'Send one event to this endpoint again (one attempt, asynchronous)',
    tags: ['Merchant Dashboard: webhooks'],
    auth,
    params: StrictObject({ webhook_id: Id('whc') }),
    body: RedeliverBody,
    responses: { 202: RedeliveryObject },
    envelope: 'bare',
    // 422 business_rule_error: the endpoint is inactive.
    errors: [422],
    async handler({ em, merchantId, session, params, body, deps }) {
      const context = {
        client: deps.temporal.client,
        organizationId: await organizationOfMerchant(em, merchantId),
        actor: dashboardActor(session),
      };
      return { status: 202, data: await redeliverEvent(em, merchantId, params.webhook_id, body.event_id, context) };
    },
  }),
];
