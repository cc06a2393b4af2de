/**
 * The organization key's team management of a merchant (docs/api-decisions.md, "Merchant team"). The merchant
 * Dashboard serves the same operations to owners and admins at /merchant/members (merchant-dashboard-team.routes.ts).
 */
import type { ApiKeyAuth, AuthRequirement } from '../../http/auth';
import { defineRoute } from '../../http/define-route';
import { actorOf } from '../../../domain/merchants/merchants.activity';
import { MemberSchema } from './merchants.schema';
import { presentMember } from './merchants.presenter';
import { getMerchant } from './merchants.service';
import { mintInvitation } from './members.service';
import { ChangeMemberBody, InviteMemberBody, MemberParams, RemoveMemberQuery } from './members.schema';
import { MemberListParams } from './merchants.schema';
import {
  changeMemberRole,
  inviteMember,
  removeMember,
  resendInvitation,
  type TeamCaller,
} from './member-management.service';
import type { EntityManager } from '@mikro-orm/postgresql';

const tags = ['Merchants'];
const write: AuthRequirement = { keys: ['organization'], scopes: ['merchants:write'], merchantScoped: false };
// The organization key may do everything an owner may; the invitation names the organization as its sender.
const organizationCaller = (auth: ApiKeyAuth): TeamCaller => ({
  actor: actorOf(auth),
  role: null,
  name: null,
  email: null,
});

async function scopeOf(em: EntityManager, auth: ApiKeyAuth, merchantId: string) {
  // Another organization's merchant does not exist for this key (404), as on every merchant route.
  await getMerchant(em, auth.organizationId, merchantId);
  return { organizationId: auth.organizationId, merchantId };
}

export const memberRoutes = [
  defineRoute({
    method: 'post',
    path: '/merchants/:merchant_id/members',
    summary:
      'Invite a member: 201 pending membership and an e-mail with the invitation link (7 days); 409 MEMBER_ALREADY_EXISTS for a member or invitee',
    tags,
    auth: write,
    params: MemberListParams,
    body: InviteMemberBody,
    responses: { 201: MemberSchema },
    envelope: 'bare',
    idempotency: 'optional',
    async handler({ em, deps, auth, params, body }) {
      const scope = await scopeOf(em, auth, params.merchant_id);
      const invited = await inviteMember(em, deps.config, scope, organizationCaller(auth), body);
      return { status: 201, data: presentMember(invited) };
    },
  }),
  defineRoute({
    method: 'patch',
    path: '/merchants/:merchant_id/members/:member_id',
    summary: "Change a member's role (409 LAST_OWNER when it would leave the merchant without an owner)",
    tags,
    auth: write,
    params: MemberParams,
    body: ChangeMemberBody,
    responses: { 200: MemberSchema },
    envelope: 'bare',
    async handler({ em, auth, params, body }) {
      const scope = await scopeOf(em, auth, params.merchant_id);
      const changed = await changeMemberRole(em, scope, organizationCaller(auth), params.member_id, body.role);
      return { status: 200, data: presentMember(changed) };
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/merchants/:merchant_id/members/:member_id',
    summary:
      'Remove a member (with revoke_keys, and the API keys they minted), or revoke a pending invitation (409 LAST_OWNER for the last owner)',
    tags,
    auth: write,
    params: MemberParams,
    query: RemoveMemberQuery,
    responses: { 204: null },
    envelope: 'bare',
    revokesCredentials: true,
    async handler({ em, auth, params, query }) {
      const scope = await scopeOf(em, auth, params.merchant_id);
      await removeMember(em, scope, organizationCaller(auth), params.member_id, { revokeKeys: query.revoke_keys });
      return { status: 204 };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/merchants/:merchant_id/members/:member_id/resend-invitation',
    summary: 'Send a pending invitation again with a new link and 7 more days; the previous link stops working',
    tags,
    auth: write,
    params: MemberParams,
    responses: { 200: MemberSchema },
    envelope: 'bare',
    async handler({ em, deps, auth, params }) {
      const scope = await scopeOf(em, auth, params.merchant_id);
      const view = await resendInvitation(
        em,
        deps.config,
        scope,
        organizationCaller(auth),
        params.member_id,
        mintInvitation,
      );
      return { status: 200, data: presentMember(view) };
    },
  }),
];
