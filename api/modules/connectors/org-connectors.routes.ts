/**
 * Document 3 "Connectors (organization Dashboard)": a signed-in organization user (x-organization-id) manages the
 * connectors of the organization's merchants. The merchant is named by merchant_id on create (and optionally on
 * list); a connector is found by id within the organization. Same service as the merchant-level endpoints.
 */
import { Type } from '@sinclair/typebox';
import type { AppDeps } from '../../deps';
import type { DashboardRequirement, DashboardSession } from '../../http/dashboard-auth';
import { defineRoute } from '../../http/define-route';
import { pagination } from '../../http/pagination';
import { runCredentialCheck } from '../../temporal/transactions';
import { ConnectorObject, UpdateConnectorBody } from './connectors.schema';
import { connectorPresenter, presentWithHealth } from './connectors.presenter';
import { updateAndPresent } from './connectors.routes';
import {
  createConnector,
  deleteConnector,
  getConnector,
  listConnectors,
  releaseBillingHolds,
  connectorContext,
} from './connectors.service';
import {
  CreateOrgConnectorBody,
  CredentialCheckObject,
  InboundWebhookObject,
  InvalidWebhookObject,
  ListInboundWebhooksQuery,
  ListInvalidWebhooksQuery,
  ListOrgConnectorsQuery,
  OrgConnectorParams,
} from './org-connectors.schema';
import {
  merchantOfConnector,
  organizationMerchant,
  organizationMerchantIds,
  spendCredentialCheck,
} from './org-connectors.service';
import { inboundWebhooksPage, invalidWebhooksPage } from './webhook-receipts.service';

const tags = ['Organization Dashboard: connectors'];
const auth: DashboardRequirement = { dashboard: ['organization'], tenant: 'organization' };

const contextOf = (deps: AppDeps, organizationId: string, session: DashboardSession) =>
  connectorContext(deps, organizationId, { type: 'dashboard_user', id: session.userId });
const present = connectorPresenter;

export const orgConnectorRoutes = [
  defineRoute({
    method: 'get',
    path: '/org/connectors',
    summary: "List the organization's connectors (all its merchants', or merchant_id's), newest first",
    tags,
    auth,
    query: ListOrgConnectorsQuery,
    responses: { 200: Type.Array(ConnectorObject) },
    envelope: 'bare',
    pagination: 'flat',
    async handler({ em, organizationId, query, deps }) {
      const { merchant_id: merchantId, ...page } = query;
      const merchants = merchantId
        ? [await organizationMerchant(em, organizationId, merchantId)]
        : await organizationMerchantIds(em, organizationId);
      const { items, total } = await listConnectors(em, merchants, page);
      return { status: 200, data: await presentWithHealth(deps, em, items), pagination: pagination(page, total) };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/org/connectors',
    summary: "Create a connector for one of the organization's merchants (merchant_id in the body)",
    description:
      "Adds the merchant's account at a payment provider. The credentials are checked against the provider's fields (GET /payment-providers/:provider_id), encrypted at rest and never returned; webhook_secret verifies the provider's webhooks, which it sends to the connector's webhook_url. Charges reach the connector only through a routing profile. The change is recorded in the merchant's activity log. In production a test-mode connector needs the organization's switch (PATCH /org/settings, test_connectors_enabled; 422 TEST_CONNECTORS_DISABLED otherwise).",
    example: {
      merchant_id: 'mrc_2Wd8HnQe4Lz1',
      provider_slug: 'provider_a',
      name: 'Sandbox cards',
      is_test_mode: true,
      auth_method: 'api_key',
      credentials: { secret_key: 'sk_test_walkthrough' },
      country_code: 'BR',
      config: { card_brands: ['visa', 'mastercard'], installments_enabled: true },
    },
    tags,
    auth,
    body: CreateOrgConnectorBody,
    responses: { 201: ConnectorObject },
    // 422 TEST_CONNECTORS_DISABLED: a test-mode connector in production while the organization has them off.
    errors: [422],
    envelope: 'bare',
    idempotency: 'optional',
    async handler({ em, organizationId, session, body, deps }) {
      const { merchant_id: merchantId, ...input } = body;
      await organizationMerchant(em, organizationId, merchantId);
      const connector = await createConnector(em, merchantId, input, contextOf(deps, organizationId, session));
      await releaseBillingHolds(em, deps, connector);
      return { status: 201, data: present(deps)(connector) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/org/connectors/:connector_id',
    summary: 'Get a connector of the organization',
    tags,
    auth,
    params: OrgConnectorParams,
    responses: { 200: ConnectorObject },
    envelope: 'bare',
    async handler({ em, organizationId, params, deps }) {
      const merchantId = await merchantOfConnector(em, organizationId, params.connector_id);
      const [data] = await presentWithHealth(deps, em, [await getConnector(em, merchantId, params.connector_id)]);
      return { status: 200, data };
    },
  }),
  defineRoute({
    method: 'patch',
    path: '/org/connectors/:connector_id',
    summary: 'Update a connector (credentials re-validated and re-encrypted; webhook_secret null removes it)',
    tags,
    auth,
    params: OrgConnectorParams,
    body: UpdateConnectorBody,
    responses: { 200: ConnectorObject },
    envelope: 'bare',
    async handler({ em, organizationId, session, params, body, deps }) {
      const merchantId = await merchantOfConnector(em, organizationId, params.connector_id);
      const ctx = contextOf(deps, organizationId, session);
      return { status: 200, data: await updateAndPresent(em, deps, merchantId, params.connector_id, body, ctx) };
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/org/connectors/:connector_id',
    summary:
      'Delete a connector; 400 CONNECTOR_IN_USE while a routing profile or node uses it or its charges still need its provider',
    tags,
    auth,
    params: OrgConnectorParams,
    responses: { 204: null },
    envelope: 'bare',
    async handler({ em, organizationId, session, params, deps }) {
      const merchantId = await merchantOfConnector(em, organizationId, params.connector_id);
      await deleteConnector(em, merchantId, params.connector_id, contextOf(deps, organizationId, session));
      return { status: 204 };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/org/connectors/:connector_id/test',
    summary:
      "Check the stored credentials with the provider's own check (run by a worker); 502 CREDENTIAL_CHECK_UNAVAILABLE when no verdict came; 429 past the per-connector or per-organization budget",
    tags,
    auth,
    params: OrgConnectorParams,
    responses: { 200: CredentialCheckObject },
    envelope: 'bare',
    waitsOnWorkflow: true,
    async handler({ em, organizationId, params, deps }) {
      const merchantId = await merchantOfConnector(em, organizationId, params.connector_id);
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
    path: '/org/connectors/:connector_id/webhooks/inbounds',
    summary: "The connector's received provider webhooks and what became of each, newest first (kept 30 days)",
    tags,
    auth,
    params: OrgConnectorParams,
    query: ListInboundWebhooksQuery,
    responses: { 200: Type.Array(InboundWebhookObject) },
    envelope: 'bare',
    pagination: 'flat',
    async handler({ em, organizationId, params, query }) {
      await merchantOfConnector(em, organizationId, params.connector_id);
      return inboundWebhooksPage(em, params.connector_id, query);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/org/connectors/:connector_id/webhooks/invalid',
    summary:
      "Deliveries to the connector's webhook URL that were refused, with the reason, newest first (kept 30 days)",
    tags,
    auth,
    params: OrgConnectorParams,
    query: ListInvalidWebhooksQuery,
    responses: { 200: Type.Array(InvalidWebhookObject) },
    envelope: 'bare',
    pagination: 'flat',
    async handler({ em, organizationId, params, query }) {
      await merchantOfConnector(em, organizationId, params.connector_id);
      return invalidWebhooksPage(em, params.connector_id, query);
    },
  }),
];
