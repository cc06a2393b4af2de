/**
 * The merchant Dashboard's Team page (docs/api-decisions.md, "Merchant team"): every member reads the team; owners
 * and admins invite, change roles, remove and resend (the Dashboard refuses a viewer's writes with 403 before the
 * handler runs), and only an owner touches an owner. The signed-in person is the actor and the invitation's sender.
 */
import { Type } from '@sinclair/typebox';
import { defineRoute } from '../../http/define-route';
import { PageQuery, MemberSchema } from '../merchants/merchants.schema';
import { presentMember } from '../merchants/merchants.presenter';
import { listMembers, mintInvitation } from '../merchants/members.service';
import {
  ChangeMemberBody,
  DashboardMemberParams,
  InviteMemberBody,
  RemoveMemberQuery,
} from '../merchants/members.schema';
import {
  changeMemberRole,
  dashboardCaller,
  inviteMember,
  removeMember,
  resendInvitation,
} from '../merchants/member-management.service';
import { pagination } from '../../http/pagination';
import { organizationOfMerchant } from './merchant-dashboard.service';
import { merchantDashboard as auth } from './merchant-dashboard.routes';

const tags = ['Merchant Dashboard: team'];

export const merchantDashboardTeamRoutes = [
  defineRoute({
    method: 'get',
    path: '/merchant/members',
    summary: "The merchant's members and pending invitations, newest first (every role may read)",
    tags,
    auth,
    query: PageQuery,
    responses: { 200: Type.Array(MemberSchema) },
    envelope: 'bare',
    pagination: 'flat',
    async handler({ em, merchantId, query }) {
      const { items, total } = await listMembers(em, merchantId, query);
      return { status: 200, data: items.map(presentMember), pagination: pagination(query, total) };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/merchant/members',
    summary: 'Invite a member by e-mail (owners and admins; only an owner invites an owner)',
    tags,
    auth,
    body: InviteMemberBody,
    responses: { 201: MemberSchema },
    envelope: 'bare',
    idempotency: 'optional',
    async handler({ em, deps, merchantId, session, body }) {
      const scope = { organizationId: await organizationOfMerchant(em, merchantId), merchantId };
      const caller = await dashboardCaller(em, merchantId, session.userId);
      return { status: 201, data: presentMember(await inviteMember(em, deps.config, scope, caller, body)) };
    },
  }),
  defineRoute({
    method: 'patch',
    path: '/merchant/members/:member_id',
    summary: "Change a member's role (409 LAST_OWNER when the merchant would have no owner)",
    tags,
    auth,
    params: DashboardMemberParams,
    body: ChangeMemberBody,
    responses: { 200: MemberSchema },
    envelope: 'bare',
    async handler({ em, merchantId, session, params, body }) {
      const scope = { organizationId: await organizationOfMerchant(em, merchantId), merchantId };
      const caller = await dashboardCaller(em, merchantId, session.userId);
      return {
        status: 200,
        data: presentMember(await changeMemberRole(em, scope, caller, params.member_id, body.role)),
      };
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/merchant/members/:member_id',
    summary:
      'Remove a member (with revoke_keys, and the API keys they minted) or revoke a pending invitation (409 LAST_OWNER for the last owner)',
    tags,
    auth,
    params: DashboardMemberParams,
    query: RemoveMemberQuery,
    responses: { 204: null },
    envelope: 'bare',
    revokesCredentials: true,
    async handler({ em, merchantId, session, params, query }) {
      const scope = { organizationId: await organizationOfMerchant(em, merchantId), merchantId };
      const caller = await dashboardCaller(em, merchantId, session.userId);
      await removeMember(em, scope, caller, params.member_id, { revokeKeys: query.revoke_keys });
      return { status: 204 };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/merchant/members/:member_id/resend-invitation',
    summary: 'Send a pending invitation again: a new link, 7 more days; the previous link stops working',
    tags,
    auth,
    params: DashboardMemberParams,
    responses: { 200: MemberSchema },
    envelope: 'bare',
    async handler({ em, deps, merchantId, session, params }) {
      const scope = { organizationId: await organizationOfMerchant(em, merchantId), merchantId };
      const caller = await dashboardCaller(em, merchantId, session.userId);
      const view = await resendInvitation(em, deps.config, scope, caller, params.member_id, mintInvitation);
      return { status: 200, data: presentMember(view) };
    },
  }),
];
