/**
 * Document 1, Invitations: unauthenticated, the invitation token is the only credential (never an API key or a
 * Dashboard token); and POST /auth/merchant/accept-invitation of the merchant Dashboard's sign-in.
 */
import { defineRoute } from '../../http/define-route';
import {
  AcceptBody,
  DeclineBody,
  MerchantAcceptBody,
  MerchantAcceptedSchema,
  VerificationSchema,
  VerifyQuery,
} from './invitations.schema';
import {
  acceptInvitation,
  acceptMerchantInvitation,
  declineInvitation,
  verifyInvitation,
  type PasswordCheck,
} from './invitations.service';
import type { AppDeps } from '../../deps';

/** Throttle counts go through their own EntityManager, outside the request transaction the 401 rolls back. */
const passwordCheck = (deps: AppDeps, ip: string): PasswordCheck => ({
  counters: deps.orm.em.fork(),
  config: deps.config.dashboard,
  ip,
});

const tags = ['Invitations'];

export const invitationRoutes = [
  defineRoute({
    method: 'get',
    path: '/invitations/verify',
    summary: 'Check an invitation token (200 with valid:false when it is invalid or expired)',
    tags,
    auth: 'none',
    query: VerifyQuery,
    responses: { 200: VerificationSchema },
    envelope: 'bare',
    async handler({ em, query }) {
      return { status: 200, data: await verifyInvitation(em, query.token) };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/invitations/accept',
    summary: 'Accept an invitation (a new user also sets password and confirm_password); 201 empty',
    tags,
    auth: 'none',
    body: AcceptBody,
    responses: { 201: null },
    // An invalid, expired or used invitation token, or a wrong password of an existing account being renamed;
    // too many password attempts from this address.
    errors: [401, 429],
    envelope: 'bare',
    async handler({ em, deps, body, client }) {
      await acceptInvitation(em, body, passwordCheck(deps, client.ip));
      return { status: 201, data: '' };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/invitations/decline',
    summary: 'Decline an invitation (the token is consumed); 201 empty',
    tags,
    auth: 'none',
    body: DeclineBody,
    responses: { 201: null },
    errors: [401],
    envelope: 'bare',
    async handler({ em, body }) {
      await declineInvitation(em, body.token);
      return { status: 201, data: '' };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/auth/merchant/accept-invitation',
    summary: 'Merchant users: accept the welcome invitation and set the password, then sign in',
    tags: ['Dashboard sign-in'],
    auth: 'none',
    body: MerchantAcceptBody,
    responses: { 200: MerchantAcceptedSchema },
    errors: [401, 429],
    envelope: 'bare',
    async handler({ em, deps, body, client }) {
      const { email } = await acceptMerchantInvitation(em, body, passwordCheck(deps, client.ip));
      return { status: 200, data: { message: 'Invitation accepted; sign in at /auth/merchant/login', email } };
    },
  }),
];
