import { Type } from '@sinclair/typebox';
import type { DashboardRequirement } from '../../http/dashboard-auth';
import { defineRoute } from '../../http/define-route';
import { pagination } from '../../http/pagination';
import {
  GetPaymentProviderQuery,
  ListOrgPaymentProvidersQuery,
  ListPaymentProvidersQuery,
  PaymentProviderObject,
  PaymentProviderParams,
  PaymentProviderSummaryObject,
} from './payment-providers.schema';
import { presentPaymentProvider, presentPaymentProviderSummary } from './payment-providers.presenter';
import { getProvider, listActiveProviders } from './payment-providers.service';

const tags = ['Payment providers'];
// The catalog is global, but Document 3 asks organization keys for merchant_id like every merchant-area read.
const read = { keys: ['merchant', 'organization'], scopes: ['connectors:read'] } as const;
/**
 * Document 3 gives /payment-providers to API keys only; the organization Dashboard, which creates connectors,
 * reads the same catalog (credential schemas for its forms) at /org/payment-providers with its session.
 */
const organizationDashboard: DashboardRequirement = { dashboard: ['organization'], tenant: 'organization' };

export const paymentProviderRoutes = [
  defineRoute({
    method: 'get',
    path: '/org/payment-providers',
    summary: 'List the active payment providers of the catalog (organization Dashboard: connector forms)',
    tags,
    auth: organizationDashboard,
    query: ListOrgPaymentProvidersQuery,
    responses: { 200: Type.Array(PaymentProviderSummaryObject) },
    envelope: 'bare',
    pagination: 'flat',
    async handler({ em, query }) {
      const { items, total } = await listActiveProviders(em, query);
      return { status: 200, data: items.map(presentPaymentProviderSummary), pagination: pagination(query, total) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/org/payment-providers/:provider_id',
    summary: 'Get a catalog entry by id or slug (organization Dashboard: connector forms)',
    tags,
    auth: organizationDashboard,
    params: PaymentProviderParams,
    responses: { 200: PaymentProviderObject },
    envelope: 'bare',
    async handler({ em, params }) {
      return { status: 200, data: presentPaymentProvider(await getProvider(em, params.provider_id)) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/payment-providers',
    summary: 'List the active payment providers of the catalog',
    tags,
    auth: read,
    query: ListPaymentProvidersQuery,
    responses: { 200: Type.Array(PaymentProviderSummaryObject) },
    envelope: 'bare',
    pagination: 'flat',
    async handler({ em, query }) {
      const { items, total } = await listActiveProviders(em, query);
      return { status: 200, data: items.map(presentPaymentProviderSummary), pagination: pagination(query, total) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/payment-providers/:provider_id',
    summary: 'Get a catalog entry, including its OAuth fields and capabilities (by id or slug)',
    tags,
    auth: read,
    params: PaymentProviderParams,
    query: GetPaymentProviderQuery,
    responses: { 200: PaymentProviderObject },
    envelope: 'bare',
    async handler({ em, params }) {
      return { status: 200, data: presentPaymentProvider(await getProvider(em, params.provider_id)) };
    },
  }),
];
