/** Request and response shapes of Document 1's Dashboard sign-in endpoints (bare responses). */
import { Type } from '@sinclair/typebox';
import { Id, Nullable, StrictObject, Timestamp } from '../../http/schema';

const Email = Type.String({ format: 'email', minLength: 3, maxLength: 254 });
/** Only an upper bound on sign-in: the policy applies to new passwords, and a huge body must not reach argon2. */
const Password = Type.String({ minLength: 1, maxLength: 1024 });
const NewPassword = Type.String({
  minLength: 1,
  maxLength: 1024,
  description: '12 to 128 characters with a lowercase letter, an uppercase letter and a number',
});

export const LoginBody = StrictObject({ email: Email, password: Password });
export const MerchantLoginBody = StrictObject({
  email: Email,
  password: Password,
  account_id: Type.Optional({
    ...Id('usr'),
    description: 'The account to enter when the e-mail and password open several (one of choose_account)',
  }),
});
export const ChangePasswordBody = StrictObject({ email: Email, current_password: Password, new_password: NewPassword });
export const SwitchOrganizationBody = StrictObject({ organization_id: Id('org') });
export const RefreshBody = StrictObject({ refresh_token: Type.String({ minLength: 1, maxLength: 256 }) });

const tokenFields = {
  access_token: Type.String(),
  refresh_token: Type.String(),
  token_type: Type.Literal('Bearer'),
  expires_in: Type.Integer({ description: 'Access token lifetime in seconds' }),
};
export const TokenPairSchema = StrictObject(tokenFields);

export const MerchantMembershipSchema = StrictObject({
  membership_id: Type.String(),
  merchant_id: Type.String(),
  merchant_name: Type.String(),
  status: Type.String(),
  role: Type.String(),
  organization_id: Type.String(),
  organization_name: Type.String(),
});

export const OrganizationMembershipSchema = StrictObject({
  membership_id: Type.String(),
  organization_id: Type.String(),
  organization_name: Type.String(),
  role: Type.String(),
});

export const MerchantLoginSchema = StrictObject({
  user: StrictObject({
    id: Type.String(),
    email: Type.String(),
    name: Nullable(Type.String()),
    merchants: Type.Array(MerchantMembershipSchema),
    last_login_at: Timestamp,
  }),
  ...tokenFields,
});

/** The password opens accounts in several organizations and none was named: no tokens until one is chosen. */
export const MerchantAccountChoiceSchema = StrictObject({
  choose_account: Type.Array(
    StrictObject({
      account_id: Type.String({ description: 'Send it back as account_id, with the e-mail and password' }),
      organization_id: Type.String(),
      organization_name: Type.String(),
      merchants: Type.Array(StrictObject({ merchant_id: Type.String(), merchant_name: Type.String() })),
    }),
    { minItems: 2 },
  ),
});

export const OrganizationLoginSchema = StrictObject({
  user: StrictObject({
    id: Type.String(),
    email: Type.String(),
    name: Nullable(Type.String()),
    last_login_at: Timestamp,
  }),
  organization_id: Type.String(),
  memberships: Type.Array(OrganizationMembershipSchema),
  ...tokenFields,
});

export const AdminLoginSchema = StrictObject({
  user: StrictObject({
    id: Type.String(),
    email: Type.String(),
    name: Nullable(Type.String()),
    role: Type.String(),
    last_login_at: Nullable(Timestamp),
  }),
  must_change_password: Type.Boolean({ description: 'true: no tokens; change the temporary password first' }),
  access_token: Type.Optional(Type.String()),
  refresh_token: Type.Optional(Type.String()),
  token_type: Type.Optional(Type.Literal('Bearer')),
  expires_in: Type.Optional(Type.Integer()),
});

export const SwitchOrganizationSchema = StrictObject({ ...tokenFields, organization_id: Type.String() });
export const EmptySchema = StrictObject({});
export const MerchantPasswordChangedSchema = StrictObject({
  message: Type.String(),
  email: Type.String(),
  can_login: Type.Boolean(),
});
export const MerchantMembershipsSchema = StrictObject({ memberships: Type.Array(MerchantMembershipSchema) });
export const OrganizationMembershipsSchema = StrictObject({ memberships: Type.Array(OrganizationMembershipSchema) });

export const ForgotPasswordBody = StrictObject({ email: Email });
export const ResetPasswordBody = StrictObject({
  token: Type.String({ minLength: 1, maxLength: 256, description: 'From the reset link' }),
  new_password: NewPassword,
});
export const MessageSchema = StrictObject({ message: Type.String() });
