import { Type } from '@sinclair/typebox';
import { defineRoute } from '../../http/define-route';
import { pagination } from '../../http/pagination';
import {
  CreateProfileBody,
  DefaultConnectorBody,
  ListProfilesQuery,
  MerchantParams,
  NoQuery,
  ProfileObject,
  ProfileParams,
  UpdateProfileBody,
} from './routing-profiles.schema';
import { presentProfile } from './routing-profiles.presenter';
import {
  createProfile,
  deleteProfile,
  getProfile,
  listProfiles,
  routingContext,
  setDefaultConnector,
  updateProfile,
} from './routing-profiles.service';

export const tags = ['Routing profiles'];
const keys = ['merchant', 'organization'] as const;
/** Document 3 names no scope for routing; it gets its own pair (docs/api-decisions.md). */
export const routingRead = { keys, scopes: ['routing:read'] } as const;
export const routingWrite = { keys, scopes: ['routing:write'] } as const;

const base = '/merchants/:merchant_id/routing-profiles';

export const routingProfileRoutes = [
  defineRoute({
    method: 'get',
    path: base,
    summary: 'List routing profiles, newest first',
    tags,
    auth: routingRead,
    params: MerchantParams,
    query: ListProfilesQuery,
    responses: { 200: Type.Array(ProfileObject) },
    envelope: 'bare',
    pagination: 'flat',
    async handler({ em, merchantId, query }) {
      const { items, total } = await listProfiles(em, merchantId, query);
      return { status: 200, data: items.map(presentProfile), pagination: pagination(query, total) };
    },
  }),
  defineRoute({
    method: 'post',
    path: base,
    summary: 'Create a routing profile (inactive unless is_active is true)',
    tags,
    auth: routingWrite,
    params: MerchantParams,
    query: NoQuery,
    body: CreateProfileBody,
    responses: { 201: ProfileObject },
    envelope: 'bare',
    idempotency: 'optional',
    async handler(input) {
      const ctx = await routingContext(input);
      const { body } = input;
      return { status: 201, data: presentProfile(await createProfile(ctx, body)) };
    },
  }),
  defineRoute({
    method: 'get',
    path: `${base}/:profile_id`,
    summary: 'Get a routing profile',
    tags,
    auth: routingRead,
    params: ProfileParams,
    query: NoQuery,
    responses: { 200: ProfileObject },
    envelope: 'bare',
    async handler({ em, merchantId, params }) {
      return { status: 200, data: presentProfile(await getProfile(em, merchantId, params.profile_id)) };
    },
  }),
  defineRoute({
    method: 'patch',
    path: `${base}/:profile_id`,
    summary: 'Update a routing profile; activating a second profile for a method is 409 unless deactivate_conflicting',
    tags,
    auth: routingWrite,
    params: ProfileParams,
    query: NoQuery,
    body: UpdateProfileBody,
    responses: { 200: ProfileObject },
    envelope: 'bare',
    async handler(input) {
      const ctx = await routingContext(input);
      const { params, body } = input;
      return {
        status: 200,
        data: presentProfile(await updateProfile(ctx, params.profile_id, body)),
      };
    },
  }),
  defineRoute({
    method: 'delete',
    path: `${base}/:profile_id`,
    summary: 'Delete a routing profile and its nodes',
    tags,
    auth: routingWrite,
    params: ProfileParams,
    query: NoQuery,
    responses: { 204: null },
    envelope: 'bare',
    async handler(input) {
      const ctx = await routingContext(input);
      const { params } = input;
      await deleteProfile(ctx, params.profile_id);
      return { status: 204 };
    },
  }),
  defineRoute({
    method: 'patch',
    path: `${base}/:profile_id/default-connector`,
    summary: 'Set the default connector (must be an active connector of the merchant); returns the profile',
    tags,
    auth: routingWrite,
    params: ProfileParams,
    query: NoQuery,
    body: DefaultConnectorBody,
    responses: { 200: ProfileObject },
    envelope: 'bare',
    // 422 business_rule_error: the connector cannot be the default.
    errors: [422],
    async handler(input) {
      const ctx = await routingContext(input);
      const { params, body } = input;
      const profile = await setDefaultConnector(ctx, params.profile_id, body.merchant_connector_id);
      return { status: 200, data: presentProfile(profile) };
    },
  }),
];
