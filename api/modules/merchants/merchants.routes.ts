import { Type } from '@sinclair/typebox';
import { defineRoute } from '../../http/define-route';
import type { AuthRequirement } from '../../http/auth';
import { pagination } from '../../http/pagination';
import {
  ActivitySchema,
  CreateMerchantBody,
  ListMerchantsQuery,
  MemberListParams,
  MemberSchema,
  MerchantParams,
  MerchantReceiptSchema,
  MerchantSchema,
  PageQuery,
  UpdateMerchantBody,
} from './merchants.schema';
import { presentActivity, presentMember, presentMerchant, presentMerchantReceipt } from './merchants.presenter';
import {
  createMerchant,
  deleteMerchant,
  getMerchant,
  listActivity,
  listMerchants,
  updateMerchant,
} from './merchants.service';
import { listMembers } from './members.service';
import { signalBillingResumed } from '../../temporal/subscriptions';
import { liveSubscriptionIds } from '../subscriptions/subscriptions.service';

const tags = ['Merchants'];
// Organization keys only; the merchant in the path is checked against the key's organization by the
// service (404, not the framework's 403), as the Merchants section requires.
const read: AuthRequirement = { keys: ['organization'], scopes: ['merchants:read'], merchantScoped: false };
const write: AuthRequirement = { keys: ['organization'], scopes: ['merchants:write'], merchantScoped: false };

export const merchantRoutes = [
  defineRoute({
    method: 'get',
    path: '/merchants',
    summary: "List the organization's merchants, newest first",
    tags,
    auth: read,
    query: ListMerchantsQuery,
    responses: { 200: Type.Array(MerchantSchema) },
    envelope: 'bare',
    pagination: 'nested',
    async handler({ em, auth, query }) {
      const { items, total } = await listMerchants(em, auth.organizationId, query);
      return { status: 200, data: items.map(presentMerchant), pagination: pagination(query, total) };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/merchants',
    summary: 'Create a merchant; primary_email becomes its first (pending) owner',
    tags,
    auth: write,
    body: CreateMerchantBody,
    responses: { 201: MerchantReceiptSchema },
    envelope: 'bare',
    idempotency: 'optional',
    async handler({ em, deps, auth, body }) {
      return { status: 201, data: presentMerchantReceipt(await createMerchant(em, deps.config, auth, body)) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/merchants/:id',
    summary: 'Get a merchant',
    tags,
    auth: read,
    params: MerchantParams,
    responses: { 200: MerchantSchema },
    envelope: 'bare',
    async handler({ em, auth, params }) {
      return { status: 200, data: presentMerchant(await getMerchant(em, auth.organizationId, params.id)) };
    },
  }),
  defineRoute({
    method: 'patch',
    path: '/merchants/:id',
    summary: 'Update a merchant (name, website, mcc and address are locked after card-network enrollment)',
    tags,
    auth: write,
    params: MerchantParams,
    body: UpdateMerchantBody,
    responses: { 200: MerchantSchema },
    envelope: 'bare',
    // The merchant's status is cached with the API keys: a suspension (or deactivation) must refuse this process's
    // next request at once, not after the change's NOTIFY reaches the cache.
    revokesCredentials: true,
    async handler({ em, auth, params, body, deps }) {
      const { merchant, reactivated } = await updateMerchant(em, auth, params.id, body);
      // A merchant that is not active holds its renewals (merchant_not_active); made active again, its live
      // subscriptions look again now rather than at their daily re-check.
      if (reactivated) await signalBillingResumed(deps.temporal.client, await liveSubscriptionIds(em, merchant.id));
      return { status: 200, data: presentMerchant(merchant) };
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/merchants/:id',
    summary: 'Delete a merchant without activity',
    tags,
    auth: write,
    params: MerchantParams,
    responses: { 204: null },
    envelope: 'bare',
    async handler({ em, auth, params }) {
      await deleteMerchant(em, auth, params.id);
      return { status: 204 };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/merchants/:id/activity',
    summary: "A merchant's administrative activity log, newest first",
    tags,
    auth: read,
    params: MerchantParams,
    query: PageQuery,
    responses: { 200: Type.Array(ActivitySchema) },
    envelope: 'bare',
    pagination: 'nested',
    async handler({ em, auth, params, query }) {
      const { items, total } = await listActivity(em, auth.organizationId, params.id, query);
      return { status: 200, data: items.map(presentActivity), pagination: pagination(query, total) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/merchants/:merchant_id/members',
    summary: "A merchant's members and pending invitations, newest first",
    tags,
    auth: read,
    params: MemberListParams,
    query: PageQuery,
    responses: { 200: Type.Array(MemberSchema) },
    envelope: 'bare',
    pagination: 'nested',
    async handler({ em, auth, params, query }) {
      await getMerchant(em, auth.organizationId, params.merchant_id);
      const { items, total } = await listMembers(em, params.merchant_id, query);
      return { status: 200, data: items.map(presentMember), pagination: pagination(query, total) };
    },
  }),
];
