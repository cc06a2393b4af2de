/** Document 1, Invitations (bare responses); and the merchant Dashboard's accept-invitation. */
import { Type } from '@sinclair/typebox';
import { Nullable, SingleLineName, StrictObject, Timestamp } from '../../http/schema';

const Token = Type.String({ minLength: 1, maxLength: 256, description: 'From the invitation e-mail' });
const Password = Type.String({ minLength: 1, maxLength: 1024 });
const Name = SingleLineName();

export const VerifyQuery = StrictObject({ token: Token });
export const AcceptBody = StrictObject({
  token: Token,
  name: Type.Optional(Name),
  password: Type.Optional(Password),
  confirm_password: Type.Optional(Password),
});
export const DeclineBody = StrictObject({ token: Token });
export const MerchantAcceptBody = StrictObject({ token: Token, password: Password, name: Type.Optional(Name) });

export const VerificationSchema = StrictObject({
  valid: Type.Boolean(),
  email: Nullable(Type.String()),
  organization_name: Nullable(Type.String()),
  role: Nullable(Type.String()),
  inviter_name: Nullable(Type.String()),
  expires_at: Nullable(Timestamp),
  is_new_user: Type.Boolean(),
});
export const MerchantAcceptedSchema = StrictObject({ message: Type.String(), email: Type.String() });
