/**
 * Document 1, Dashboard sign-in: logins, logout, memberships, organization switch, change-password and the token
 * refresh (path decided here: POST /auth/refresh). Credential exchange is by request body; the rest takes a
 * Dashboard access token of the matching Dashboard.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import type { DashboardConfig } from '../../../domain/platform/config';
import { defineRoute } from '../../http/define-route';
import type { DashboardRequirement } from '../../http/dashboard-auth';
import {
  AdminLoginSchema,
  ChangePasswordBody,
  EmptySchema,
  ForgotPasswordBody,
  LoginBody,
  MerchantAccountChoiceSchema,
  MerchantLoginBody,
  MessageSchema,
  MerchantLoginSchema,
  MerchantMembershipsSchema,
  MerchantPasswordChangedSchema,
  OrganizationLoginSchema,
  OrganizationMembershipsSchema,
  RefreshBody,
  ResetPasswordBody,
  SwitchOrganizationBody,
  SwitchOrganizationSchema,
  TokenPairSchema,
} from './auth.schema';
import {
  changePassword,
  loginAdmin,
  loginMerchant,
  loginOrganization,
  logout,
  switchOrganization,
} from './auth.service';
import { merchantMemberships, organizationMemberships } from './identities.service';
import { refreshSession } from './sessions.service';
import { FORGOT_PASSWORD_MESSAGE, forgotPassword, resetPassword } from './password-reset.service';
import type { DashboardIdentity } from '../../http/dashboard-auth';

const forgotRoute = (path: string, identity: DashboardIdentity, who: string) =>
  defineRoute({
    method: 'post',
    path,
    summary: `${who}: e-mail a password reset link (always 202, registered or not)`,
    tags,
    auth: 'none',
    body: ForgotPasswordBody,
    responses: { 202: MessageSchema },
    // The per-address throttle.
    errors: [429],
    envelope: 'bare',
    ownTransactions: true,
    async handler({ em, deps, body, client }) {
      await forgotPassword(em, deps.config, identity, { email: body.email, ip: client.ip });
      return { status: 202, data: { message: FORGOT_PASSWORD_MESSAGE } };
    },
  });

const tags = ['Dashboard sign-in'];

/** A login for one identity: credentials in the body, the identity's own login answer. */
const loginRoute = <T extends TSchema, B extends typeof LoginBody | typeof MerchantLoginBody>(
  path: string,
  summary: string,
  response: T,
  login: (em: EntityManager, config: DashboardConfig, input: Static<B> & { ip: string }) => Promise<Static<T>>,
  body: B = LoginBody as B,
) =>
  defineRoute({
    method: 'post',
    path,
    summary,
    tags,
    auth: 'none',
    body,
    responses: { 200: response },
    // Wrong credentials; the per-address throttle.
    errors: [401, 429],
    envelope: 'bare',
    ownTransactions: true,
    async handler({ em, deps, body, client }) {
      return { status: 200, data: await login(em, deps.config.dashboard, { ...body, ip: client.ip }) };
    },
  });

/** Change-password for an identity whose answer is empty (platform and organization users). */
const changePasswordRoute = (path: string, identity: 'admin' | 'organization', summary: string) =>
  defineRoute({
    method: 'post',
    path,
    summary,
    tags,
    auth: 'none',
    body: ChangePasswordBody,
    responses: { 200: EmptySchema },
    // Wrong current password; throttled like a login.
    errors: [401, 429],
    envelope: 'bare',
    ownTransactions: true,
    revokesCredentials: true,
    async handler({ em, deps, body, client }) {
      await changePassword(em, deps.config.dashboard, identity, { ...body, ip: client.ip });
      return { status: 200, data: {} };
    },
  });

const merchantUser: DashboardRequirement = { dashboard: ['merchant'] };
const organizationUser: DashboardRequirement = { dashboard: ['organization'] };

export const authRoutes = [
  loginRoute(
    '/auth/login',
    'Platform users (super admin, platform admin, support): sign in',
    AdminLoginSchema,
    loginAdmin,
  ),
  loginRoute(
    '/auth/organization/login',
    'Organization users: sign in (the session starts in the first organization; switch to change it)',
    OrganizationLoginSchema,
    loginOrganization,
  ),
  loginRoute(
    '/auth/merchant/login',
    'Merchant users: sign in; when the password opens accounts in several organizations, choose one (account_id)',
    Type.Union([MerchantLoginSchema, MerchantAccountChoiceSchema]),
    loginMerchant,
    MerchantLoginBody,
  ),
  defineRoute({
    method: 'post',
    path: '/auth/refresh',
    summary: 'Any Dashboard: exchange a refresh token for a new pair (the presented token is rotated out)',
    tags,
    auth: 'none',
    body: RefreshBody,
    responses: { 200: TokenPairSchema },
    // An invalid, expired or revoked refresh token.
    errors: [401],
    envelope: 'bare',
    ownTransactions: true,
    revokesCredentials: true,
    async handler({ em, deps, body }) {
      return { status: 200, data: await refreshSession(em, deps.config.dashboard, body.refresh_token) };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/auth/logout',
    summary: 'Platform or merchant users: end the session (its refresh token stops working)',
    tags,
    auth: { dashboard: ['admin', 'merchant', 'organization'] },
    responses: { 200: EmptySchema },
    envelope: 'bare',
    revokesCredentials: true,
    async handler({ em, session }) {
      await logout(em, session);
      return { status: 200, data: {} };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/auth/organization/logout',
    summary: 'Organization users: end the session',
    tags,
    auth: organizationUser,
    responses: { 200: EmptySchema },
    envelope: 'bare',
    revokesCredentials: true,
    async handler({ em, session }) {
      await logout(em, session);
      return { status: 200, data: {} };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/auth/merchant/memberships',
    summary: "The signed-in merchant user's merchant memberships",
    tags,
    auth: merchantUser,
    responses: { 200: MerchantMembershipsSchema },
    envelope: 'bare',
    async handler({ em, session }) {
      return { status: 200, data: { memberships: await merchantMemberships(em, session.userId) } };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/auth/organization/memberships',
    summary: "The signed-in organization user's organization memberships",
    tags,
    auth: organizationUser,
    responses: { 200: OrganizationMembershipsSchema },
    envelope: 'bare',
    async handler({ em, session }) {
      return { status: 200, data: { memberships: await organizationMemberships(em, session.userId) } };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/auth/organization/switch',
    summary: 'Re-mint the token pair against another organization of the user (403 without membership)',
    tags,
    auth: organizationUser,
    body: SwitchOrganizationBody,
    responses: { 200: SwitchOrganizationSchema },
    envelope: 'bare',
    ownTransactions: true,
    revokesCredentials: true,
    async handler({ em, deps, session, body }) {
      return {
        status: 200,
        data: await switchOrganization(em, deps.config.dashboard, session, body.organization_id),
      };
    },
  }),
  changePasswordRoute(
    '/auth/change-password',
    'admin',
    'Platform users: change the password (required when must_change_password is true)',
  ),
  defineRoute({
    method: 'post',
    path: '/auth/merchant/change-password',
    summary: 'Merchant users: change the password; every session of the account is revoked',
    tags,
    auth: 'none',
    body: ChangePasswordBody,
    responses: { 200: MerchantPasswordChangedSchema },
    errors: [401, 429],
    envelope: 'bare',
    ownTransactions: true,
    revokesCredentials: true,
    async handler({ em, deps, body, client }) {
      const user = await changePassword(em, deps.config.dashboard, 'merchant', { ...body, ip: client.ip });
      return {
        status: 200,
        data: {
          message: 'Password changed; sign in again with the new password',
          email: user.email,
          can_login: true,
        },
      };
    },
  }),
  changePasswordRoute(
    '/auth/organization/change-password',
    'organization',
    'Organization users: change the password; every session of the account is revoked',
  ),
  forgotRoute('/auth/forgot-password', 'admin', 'Platform users'),
  forgotRoute('/auth/merchant/forgot-password', 'merchant', 'Merchant users'),
  forgotRoute('/auth/organization/forgot-password', 'organization', 'Organization users'),
  defineRoute({
    method: 'post',
    path: '/auth/reset-password',
    summary: 'Any Dashboard: set a new password with the token of a reset link (single use); every session ends',
    tags,
    auth: 'none',
    body: ResetPasswordBody,
    responses: { 200: MessageSchema },
    // An invalid, expired or used reset token; too many attempts from this address or with this token.
    errors: [401, 429],
    envelope: 'bare',
    ownTransactions: true,
    revokesCredentials: true,
    async handler({ em, deps, body, client }) {
      await resetPassword(em, deps.config.dashboard, { ...body, ip: client.ip });
      return { status: 200, data: { message: 'Password changed; sign in with the new password' } };
    },
  }),
];
