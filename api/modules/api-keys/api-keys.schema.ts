import { Type } from '@sinclair/typebox';
import { Id, Nullable, PaginationQuery, StrictObject, StringEnum, Timestamp } from '../../http/schema';
import { SCOPES } from '../../../domain/api-keys/api-keys.scopes';

/** A rolled key keeps working at most this long (30 days); 0 ends it at once. */
export const MAX_OVERLAP_HOURS = 720;

const Scopes = Type.Array(StringEnum(SCOPES), {
  uniqueItems: true,
  maxItems: SCOPES.length,
  description: 'resource:action scopes the key may use; omitted = every scope (secret keys), none (public keys)',
});

export const ApiKeyMerchantParams = StrictObject({ merchant_id: Id('mrc') });
export const ApiKeyParams = StrictObject({ merchant_id: Id('mrc'), key_id: Id('ak') });
export const DashboardApiKeyParams = StrictObject({ key_id: Id('ak') });
export const ListApiKeysQuery = StrictObject({
  ...PaginationQuery,
  created_by: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 64,
      description: "Only the keys minted by this Dashboard user (a member's user_id) or API key",
    }),
  ),
});

export const CreateApiKeyBody = StrictObject({
  name: Type.String({ minLength: 1, maxLength: 100 }),
  kind: StringEnum(['secret', 'public'] as const),
  scopes: Type.Optional(Scopes),
  expires_in_hours: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 24 * 366, description: 'The key is refused after this; omitted = no expiry' }),
  ),
});

export const RollApiKeyBody = StrictObject({
  expires_in_hours: Type.Integer({
    minimum: 0,
    maximum: MAX_OVERLAP_HOURS,
    description: 'How long the old key keeps working (0: refused at once); the new key starts now',
  }),
});

const keyFields = {
  id: Type.String(),
  merchant_id: Type.String(),
  name: Nullable(Type.String()),
  kind: StringEnum(['secret', 'public'] as const),
  prefix: Type.String({ description: 'The first characters of the key (kind and level), e.g. sk_live_mer_' }),
  last_four: Type.String(),
  scopes: Type.Array(Type.String()),
  status: StringEnum(['active', 'expired', 'revoked'] as const),
  created_at: Timestamp,
  last_used_at: Nullable(Timestamp),
  expires_at: Nullable(Timestamp),
  revoked_at: Nullable(Timestamp),
  created_by: Nullable(
    StrictObject(
      {
        type: StringEnum(['dashboard_user', 'api_key'] as const),
        id: Type.String({ description: "The Dashboard user's id (a member's user_id) or the minting API key's id" }),
      },
      { description: 'Who minted the key (created or rolled it); null for keys made before this was recorded' },
    ),
  ),
};

/** Never carries the key: only its prefix and last four characters. */
export const ApiKeyObject = StrictObject(keyFields);
/** An organization's own key: the same fields, the organization in place of a merchant. */
const { id, merchant_id: _merchant, ...sharedFields } = keyFields;
const organizationKeyFields = { id, organization_id: Type.String(), ...sharedFields };
export const OrganizationApiKeyObject = StrictObject(organizationKeyFields);
export const OrganizationApiKeyWithSecret = StrictObject({
  ...organizationKeyFields,
  key: Type.String({ description: 'The API key; shown only in this response' }),
});
/** The one response that carries the key itself (creation and roll): shown once, never stored. */
export const ApiKeyWithSecret = StrictObject({
  ...keyFields,
  key: Type.String({ description: 'The API key; shown only in this response' }),
});
