import { Type } from '@sinclair/typebox';
import type { AppDeps } from '../../deps';
import type { ApiKeyAuth } from '../../http/auth';
import { defineRoute } from '../../http/define-route';
import { pagination } from '../../http/pagination';
import { actorOf } from '../../../domain/merchants/merchants.activity';
import {
  ConnectorObject,
  ConnectorParams,
  CreateConnectorBody,
  ListConnectorsQuery,
  MerchantParams,
  UpdateConnectorBody,
} from './connectors.schema';
import { connectorPresenter } from './connectors.presenter';
import {
  createConnector,
  deleteConnector,
  getConnector,
  listConnectors,
  updateConnector,
  connectorContext,
} from './connectors.service';
import { signalBillingResumed } from '../../temporal';
import { liveSubscriptionIds } from '../subscriptions/subscriptions.service';

const tags = ['Connectors'];
const keys = ['merchant', 'organization'] as const;
const write = { keys, scopes: ['connectors:write'] } as const;
const read = { keys, scopes: ['connectors:read'] } as const;

const contextOf = (deps: AppDeps, auth: ApiKeyAuth) => connectorContext(deps, auth.organizationId, actorOf(auth));
const present = connectorPresenter;

export const connectorRoutes = [
  defineRoute({
    method: 'post',
    path: '/merchants/:merchant_id/connectors',
    summary: 'Create a connector (credentials are validated per provider, encrypted and never returned)',
    tags,
    auth: write,
    params: MerchantParams,
    body: CreateConnectorBody,
    responses: { 201: ConnectorObject },
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
      return { status: 200, data: items.map(present(deps)), pagination: pagination(query, total) };
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
      return { status: 200, data: present(deps)(await getConnector(em, merchantId, params.connector_id)) };
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
      const connector = await updateConnector(em, merchantId, params.connector_id, body, contextOf(deps, auth));
      // Subscriptions held for want of an active connector look again.
      if (body.is_active === true)
        await signalBillingResumed(deps.temporal.client, await liveSubscriptionIds(em, merchantId));
      return { status: 200, data: present(deps)(connector) };
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/merchants/:merchant_id/connectors/:connector_id',
    summary: 'Delete a connector; 400 CONNECTOR_IN_USE while a routing profile or node uses it',
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
];
