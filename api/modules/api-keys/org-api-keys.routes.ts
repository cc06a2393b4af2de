/**
 * The organization's own API keys in the organization Dashboard (docs/api-decisions.md): list, roll and revoke, as
 * the merchant Dashboard manages a merchant's keys. Owners and admins change them (viewers read); no API key manages
 * them, so a leaked key cannot mint or keep others. The key itself appears only in the roll response.
 */
import { Type } from '@sinclair/typebox';
import { defineRoute, type AnyRoute } from '../../http/define-route';
import type { DashboardRequirement } from '../../http/dashboard-auth';
import { pagination } from '../../http/pagination';
import {
  DashboardApiKeyParams,
  ListApiKeysQuery,
  OrganizationApiKeyObject,
  OrganizationApiKeyWithSecret,
  RollApiKeyBody,
} from './api-keys.schema';
import { presentOrganizationApiKey, presentOrganizationApiKeyWithSecret } from './api-keys.presenter';
import { listOrganizationApiKeys, revokeOrganizationApiKey, rollOrganizationApiKey } from './org-api-keys.service';

const tags = ['API keys'];
const auth: DashboardRequirement = { dashboard: ['organization'], tenant: 'organization' };

export const organizationApiKeyRoutes: AnyRoute[] = [
  defineRoute({
    method: 'get',
    path: '/org/api-keys',
    summary: "The organization's own API keys, newest first (never the keys themselves: prefix and last four)",
    tags,
    auth,
    query: ListApiKeysQuery,
    responses: { 200: Type.Array(OrganizationApiKeyObject) },
    envelope: 'bare',
    pagination: 'flat',
    async handler({ em, organizationId, query }) {
      const { items, total } = await listOrganizationApiKeys(em, organizationId, query);
      return {
        status: 200,
        data: items.map((key) => presentOrganizationApiKey(key)),
        pagination: pagination(query, total),
      };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/org/api-keys/:key_id/revoke',
    summary: 'Owners and admins: revoke an organization API key, refused from the next request',
    tags,
    auth,
    params: DashboardApiKeyParams,
    responses: { 200: OrganizationApiKeyObject },
    envelope: 'bare',
    revokesCredentials: true,
    async handler({ em, organizationId, session, params }) {
      const actor = { type: 'dashboard_user' as const, id: session.userId };
      return {
        status: 200,
        data: presentOrganizationApiKey(await revokeOrganizationApiKey(em, organizationId, params.key_id, actor)),
      };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/org/api-keys/:key_id/roll',
    summary:
      'Owners and admins: roll an organization API key (same name, kind, scopes, expiry); the old one works for expires_in_hours more',
    tags,
    auth,
    params: DashboardApiKeyParams,
    body: RollApiKeyBody,
    responses: { 201: OrganizationApiKeyWithSecret },
    errors: [409],
    envelope: 'bare',
    revokesCredentials: true,
    async handler({ em, organizationId, session, params, body }) {
      const creator = { type: 'dashboard_user' as const, id: session.userId };
      const rolled = await rollOrganizationApiKey(em, organizationId, params.key_id, body.expires_in_hours, creator);
      return { status: 201, data: presentOrganizationApiKeyWithSecret(rolled.record, rolled.key) };
    },
  }),
];
