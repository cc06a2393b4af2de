import { Type } from '@sinclair/typebox';
import type { AppDeps } from '../../deps';
import type { ApiKeyAuth } from '../../http/auth';
import { defineRoute } from '../../http/define-route';
import { pagination } from '../../http/pagination';
import { actorOf } from '../../../domain/merchants/merchants.activity';
import {
  CircuitBody,
  ConnectorObject,
  ConnectorParams,
  DashboardConnectorParams,
  CreateConnectorBody,
  ListConnectorsQuery,
  MerchantParams,
  UpdateConnectorBody,
} from './connectors.schema';
import { connectorPresenter, presentWithHealth } from './connectors.presenter';
import {
  createConnector,
  deleteConnector,
  getConnector,
  listConnectors,
  updateConnector,
  releaseBillingHolds,
  connectorContext,
  setConnectorCircuit,
} from './connectors.service';
import type { DashboardRequirement, DashboardSession } from '../../http/dashboard-auth';
import type { EntityManager } from '@mikro-orm/postgresql';
import { dashboardActor, organizationOfMerchant } from '../merchant-dashboard/merchant-dashboard.service';

const tags = ['Connectors'];
const keys = ['merchant', 'organization'] as const;
const write = { keys, scopes: ['connectors:write'] } as const;
const read = { keys, scopes: ['connectors:read'] } as const;

/** The merchant Dashboard's sessions (x-merchant-id); a write needs an owner or admin (dashboard-auth). */
const merchantDashboard: DashboardRequirement = { dashboard: ['merchant'], tenant: 'merchant' };

const contextOf = (deps: AppDeps, auth: ApiKeyAuth) => connectorContext(deps, auth.organizationId, actorOf(auth));
const present = connectorPresenter;

/** The signed-in person as the actor of a Dashboard change (activity log), on the merchant's organization. */
const dashboardContextOf = async (deps: AppDeps, em: EntityManager, merchantId: string, session: DashboardSession) =>
  connectorContext(deps, await organizationOfMerchant(em, merchantId), dashboardActor(session));

/**
 * PATCH of a connector for every caller (API key, merchant Dashboard, organization Dashboard): the update, then the
 * billing holds a reactivation releases, then the connector as answered (with its health).
 */
export async function updateAndPresent(
  em: EntityManager,
  deps: AppDeps,
  merchantId: string,
  connectorId: string,
  body: Parameters<typeof updateConnector>[3],
  context: Parameters<typeof updateConnector>[4],
) {
  const connector = await updateConnector(em, merchantId, connectorId, body, context);
  if (body.is_active === true) await releaseBillingHolds(em, deps, connector);
  const [data] = await presentWithHealth(deps, em, [connector]);
  return data;
}

export const connectorRoutes = [
  defineRoute({
    method: 'post',
    path: '/merchants/:merchant_id/connectors',
    summary: 'Create a connector (credentials are validated per provider, encrypted and never returned)',
    description:
      "Adds the merchant's account at a payment provider. The credentials are checked against the provider's fields (GET /payment-providers/:provider_id), encrypted at rest and never returned; webhook_secret verifies the provider's webhooks, which it sends to the connector's webhook_url. Charges reach the connector only through a routing profile. The change is recorded in the merchant's activity log. In production a test-mode connector needs the organization's switch (PATCH /org/settings, test_connectors_enabled; 422 TEST_CONNECTORS_DISABLED otherwise).",
    example: {
      provider_slug: 'provider_a',
      name: 'Sandbox cards',
      is_test_mode: true,
      auth_method: 'api_key',
      credentials: { secret_key: 'sk_test_walkthrough' },
      country_code: 'BR',
      config: { card_brands: ['visa', 'mastercard'], installments_enabled: true },
    },
    tags,
    auth: write,
    params: MerchantParams,
    body: CreateConnectorBody,
    responses: { 201: ConnectorObject },
    // 422 TEST_CONNECTORS_DISABLED: a test-mode connector in production while the organization has them off.
    errors: [422],
    envelope: 'bare',
    links: [
      {
        to: 'post /merchants/:merchant_id/routing-profiles',
        from: { merchant_id: ':merchant_id', 'body.default_merchant_connector_id': 'id' },
      },
      { to: 'get /merchant/connectors/:connector_id', from: { connector_id: 'id' } },
    ],
    idempotency: 'optional',
    async handler({ em, merchantId, body, deps, auth }) {
      const connector = await createConnector(em, merchantId, body, contextOf(deps, auth));
      await releaseBillingHolds(em, deps, connector);
      return { status: 201, data: present(deps)(connector) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/merchants/:merchant_id/connectors',
    summary: "List the merchant's connectors, newest first",
    tags,
    auth: read,
    params: MerchantParams,
    query: ListConnectorsQuery,
    responses: { 200: Type.Array(ConnectorObject) },
    envelope: 'bare',
    pagination: 'flat',
    async handler({ em, merchantId, query, deps }) {
      const { items, total } = await listConnectors(em, merchantId, query);
      return { status: 200, data: await presentWithHealth(deps, em, items), pagination: pagination(query, total) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/merchants/:merchant_id/connectors/:connector_id',
    summary: 'Get a connector',
    tags,
    auth: read,
    params: ConnectorParams,
    responses: { 200: ConnectorObject },
    envelope: 'bare',
    async handler({ em, merchantId, params, deps }) {
      const [data] = await presentWithHealth(deps, em, [await getConnector(em, merchantId, params.connector_id)]);
      return { status: 200, data };
    },
  }),
  defineRoute({
    method: 'patch',
    path: '/merchants/:merchant_id/connectors/:connector_id',
    summary: 'Update a connector (credentials re-validated and re-encrypted; webhook_secret null removes it)',
    tags,
    auth: write,
    params: ConnectorParams,
    body: UpdateConnectorBody,
    responses: { 200: ConnectorObject },
    envelope: 'bare',
    async handler({ em, merchantId, params, body, deps, auth }) {
      const data = await updateAndPresent(em, deps, merchantId, params.connector_id, body, contextOf(deps, auth));
      return { status: 200, data };
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/merchants/:merchant_id/connectors/:connector_id',
    summary:
      'Delete a connector; 400 CONNECTOR_IN_USE while a routing profile or node uses it or its charges still need its provider',
    tags,
    auth: write,
    params: ConnectorParams,
    responses: { 204: null },
    envelope: 'bare',
    async handler({ em, merchantId, params, deps, auth }) {
      await deleteConnector(em, merchantId, params.connector_id, contextOf(deps, auth));
      return { status: 204 };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/merchants/:merchant_id/connectors/:connector_id/circuit',
    summary: "Open or close a connector's circuit by hand (recorded in the activity log and emitted as an event)",
    tags,
    auth: write,
    params: ConnectorParams,
    body: CircuitBody,
    responses: { 200: ConnectorObject },
    envelope: 'bare',
    async handler({ em, merchantId, params, body, deps, auth }) {
      const connector = await setConnectorCircuit(
        em,
        merchantId,
        params.connector_id,
        body.state,
        contextOf(deps, auth),
      );
      const [data] = await presentWithHealth(deps, em, [connector]);
      return { status: 200, data };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/merchant/connectors/:connector_id/circuit',
    summary: "Open or close a connector's circuit by hand (an owner or admin of the merchant)",
    tags: ['Merchant Dashboard: connectors'],
    auth: merchantDashboard,
    params: DashboardConnectorParams,
    body: CircuitBody,
    responses: { 200: ConnectorObject },
    envelope: 'bare',
    async handler({ em, merchantId, params, body, deps, session }) {
      const actor = { type: 'dashboard_user' as const, id: session.userId };
      const connector = await setConnectorCircuit(em, merchantId, params.connector_id, body.state, { actor });
      const [data] = await presentWithHealth(deps, em, [connector]);
      return { status: 200, data };
    },
  }),
  defineRoute({
    method: 'patch',
    path: '/merchant/connectors/:connector_id',
    summary:
      'Edit a connector from the Dashboard: name, active or not, credentials and webhook secret (null removes it); an owner or admin',
    tags: ['Merchant Dashboard: connectors'],
    auth: merchantDashboard,
    params: DashboardConnectorParams,
    body: UpdateConnectorBody,
    responses: { 200: ConnectorObject },
    envelope: 'bare',
    async handler({ em, merchantId, params, body, deps, session }) {
      const context = await dashboardContextOf(deps, em, merchantId, session);
      return { status: 200, data: await updateAndPresent(em, deps, merchantId, params.connector_id, body, context) };
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/merchant/connectors/:connector_id',
    summary:
      'Delete a connector from the Dashboard; 400 CONNECTOR_IN_USE while a routing profile or node uses it or its charges still need its provider',
    tags: ['Merchant Dashboard: connectors'],
    auth: merchantDashboard,
    params: DashboardConnectorParams,
    responses: { 204: null },
    envelope: 'bare',
    async handler({ em, merchantId, params, deps, session }) {
      await deleteConnector(
        em,
        merchantId,
        params.connector_id,
        await dashboardContextOf(deps, em, merchantId, session),
      );
      return { status: 204 };
    },
  }),
];
