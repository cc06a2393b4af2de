/**
 * API-key management ("not shown" in the spec, designed in docs/api-decisions.md). The organization key
 * manages its merchants' keys under /merchants/:merchant_id/api-keys; merchant owners and admins manage their
 * merchant's under /merchant/api-keys in the Dashboard (viewers read). Merchant keys cannot manage keys: a leaked
 * key must not be able to mint or keep others. The key itself appears only in the create and roll responses. The
 * caller (the organization key, or the signed-in person) is recorded as the key's creator and as the actor of the
 * activity record each change writes.
 */
import { Type } from '@sinclair/typebox';
import { defineRoute, type AnyRoute } from '../../http/define-route';
import type { DashboardRequirement } from '../../http/dashboard-auth';
import type { ApiKeyAuth, AuthRequirement } from '../../http/auth';
import type { DashboardSession } from '../../http/dashboard-auth';
import type { KeyCreator } from '../../../domain/api-keys/api-keys.service';
import { pagination } from '../../http/pagination';
import { organizationOfMerchant } from '../merchant-dashboard/merchant-dashboard.service';
import {
  ApiKeyMerchantParams,
  ApiKeyObject,
  ApiKeyParams,
  ApiKeyWithSecret,
  CreateApiKeyBody,
  DashboardApiKeyParams,
  ListApiKeysQuery,
  RollApiKeyBody,
} from './api-keys.schema';
import { presentApiKey, presentApiKeyWithSecret } from './api-keys.presenter';
import {
  createMerchantApiKey,
  listMerchantApiKeys,
  revokeMerchantApiKey,
  rollMerchantApiKey,
} from './api-keys.service';

const tags = ['API keys'];
const read: AuthRequirement = { keys: ['organization'], scopes: ['merchants:read'] };
const write: AuthRequirement = { keys: ['organization'], scopes: ['merchants:write'] };
const dashboard: DashboardRequirement = { dashboard: ['merchant'], tenant: 'merchant' };
const byKey = (auth: ApiKeyAuth): KeyCreator => ({ type: 'api_key', id: auth.keyId });
const byPerson = (session: DashboardSession): KeyCreator => ({ type: 'dashboard_user', id: session.userId });

export const apiKeyRoutes: AnyRoute[] = [
  defineRoute({
    method: 'get',
    path: '/merchants/:merchant_id/api-keys',
    summary: "List the merchant's API keys, newest first (never the keys themselves: prefix and last four)",
    tags,
    auth: read,
    params: ApiKeyMerchantParams,
    query: ListApiKeysQuery,
    responses: { 200: Type.Array(ApiKeyObject) },
    envelope: 'bare',
    pagination: 'flat',
    async handler({ em, merchantId, query }) {
      const { items, total } = await listMerchantApiKeys(em, merchantId, query);
      return { status: 200, data: items.map((key) => presentApiKey(key)), pagination: pagination(query, total) };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/merchants/:merchant_id/api-keys',
    summary:
      'Issue an API key for the merchant (secret or public, optionally narrowed to scopes, never wider than the calling key); the key is shown once',
    tags,
    auth: write,
    params: ApiKeyMerchantParams,
    body: CreateApiKeyBody,
    responses: { 201: ApiKeyWithSecret },
    envelope: 'bare',
    async handler({ em, merchantId, auth, body }) {
      const merchant = { id: merchantId, organizationId: auth.organizationId };
      const { record, key } = await createMerchantApiKey(em, merchant, body, byKey(auth), auth.scopes);
      return { status: 201, data: presentApiKeyWithSecret(record, key) };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/merchants/:merchant_id/api-keys/:key_id/revoke',
    summary: 'Revoke an API key: refused from the next request, in every API process',
    tags,
    auth: write,
    params: ApiKeyParams,
    responses: { 200: ApiKeyObject },
    envelope: 'bare',
    revokesCredentials: true,
    anyMerchantStatus: true,
    async handler({ em, merchantId, auth, params }) {
      const revoked = await revokeMerchantApiKey(em, merchantId, params.key_id, byKey(auth));
      return { status: 200, data: presentApiKey(revoked) };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/merchants/:merchant_id/api-keys/:key_id/roll',
    summary:
      'Roll an API key: a new key (same name, kind, scopes, expiry) now; the old one works for expires_in_hours more',
    tags,
    auth: write,
    params: ApiKeyParams,
    body: RollApiKeyBody,
    responses: { 201: ApiKeyWithSecret },
    errors: [409],
    envelope: 'bare',
    revokesCredentials: true,
    async handler({ em, merchantId, auth, params, body }) {
      const overlap = body.expires_in_hours;
      const { record, key } = await rollMerchantApiKey(
        em,
        merchantId,
        params.key_id,
        overlap,
        byKey(auth),
        auth.scopes,
      );
      return { status: 201, data: presentApiKeyWithSecret(record, key) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/merchant/api-keys',
    summary: "Merchant Dashboard: the merchant's API keys (never the keys themselves)",
    tags,
    auth: dashboard,
    query: ListApiKeysQuery,
    responses: { 200: Type.Array(ApiKeyObject) },
    envelope: 'bare',
    pagination: 'flat',
    async handler({ em, merchantId, query }) {
      const { items, total } = await listMerchantApiKeys(em, merchantId, query);
      return { status: 200, data: items.map((key) => presentApiKey(key)), pagination: pagination(query, total) };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/merchant/api-keys',
    summary: 'Merchant Dashboard (owners and admins): issue an API key; the key is shown once',
    tags,
    auth: dashboard,
    body: CreateApiKeyBody,
    responses: { 201: ApiKeyWithSecret },
    envelope: 'bare',
    async handler({ em, merchantId, session, body }) {
      const merchant = { id: merchantId, organizationId: await organizationOfMerchant(em, merchantId) };
      const { record, key } = await createMerchantApiKey(em, merchant, body, byPerson(session));
      return { status: 201, data: presentApiKeyWithSecret(record, key) };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/merchant/api-keys/:key_id/revoke',
    summary: 'Merchant Dashboard (owners and admins): revoke an API key at once',
    tags,
    auth: dashboard,
    params: DashboardApiKeyParams,
    responses: { 200: ApiKeyObject },
    envelope: 'bare',
    revokesCredentials: true,
    anyMerchantStatus: true,
    async handler({ em, merchantId, session, params }) {
      const revoked = await revokeMerchantApiKey(em, merchantId, params.key_id, byPerson(session));
      return { status: 200, data: presentApiKey(revoked) };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/merchant/api-keys/:key_id/roll',
    summary: 'Merchant Dashboard (owners and admins): roll an API key; the old one works for expires_in_hours more',
    tags,
    auth: dashboard,
    params: DashboardApiKeyParams,
    body: RollApiKeyBody,
    responses: { 201: ApiKeyWithSecret },
    errors: [409],
    envelope: 'bare',
    revokesCredentials: true,
    async handler({ em, merchantId, session, params, body }) {
      const overlap = body.expires_in_hours;
      const { record, key } = await rollMerchantApiKey(em, merchantId, params.key_id, overlap, byPerson(session));
      return { status: 201, data: presentApiKeyWithSecret(record, key) };
    },
  }),
];
