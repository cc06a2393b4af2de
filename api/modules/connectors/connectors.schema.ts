import { Type } from '@sinclair/typebox';
import { PROVIDER_CREDENTIALS } from '../../../domain/connectors/credentials';
import { Country, Id, Nullable, PaginationQuery, StrictObject, StringEnum, Timestamp } from '../../http/schema';

export const AUTH_METHODS = ['api_key', 'oauth2'] as const;
export type AuthMethod = (typeof AUTH_METHODS)[number];

/** Every catalog slug passes the schema; whether the provider is active is checked against the catalog. */
const ProviderSlug = StringEnum(Object.keys(PROVIDER_CREDENTIALS) as (keyof typeof PROVIDER_CREDENTIALS)[]);
const Name = Type.String({
  minLength: 1,
  maxLength: 100,
  pattern: '\\S',
  description: 'Label, at most 100 characters',
});
/** Shape checked per provider and auth method by the service (connector-rules.ts); never echoed back. */
const Credentials = Type.Unsafe<Record<string, unknown>>({
  type: 'object',
  maxSerializedBytes: 4096,
  description: 'Write-only; fields depend on provider_slug and auth_method (see GET /payment-providers/:provider_id)',
});
const WebhookSecret = Type.String({
  minLength: 1,
  maxLength: 1024,
  description: 'Write-only; format depends on the provider',
});
const CardBrand = Type.String({ minLength: 1, maxLength: 32 });

export const ConfigInput = StrictObject({
  card_brands: Type.Optional(
    Type.Array(CardBrand, {
      maxItems: 20,
      uniqueItems: true,
      description: "Subset of the provider's brands; empty or absent = the provider's defaults",
    }),
  ),
  installments_enabled: Type.Optional(Type.Boolean()),
});

export const CreateConnectorBody = StrictObject({
  provider_slug: ProviderSlug,
  name: Name,
  is_test_mode: Type.Boolean(),
  credentials: Credentials,
  auth_method: StringEnum(AUTH_METHODS),
  country_code: Type.Optional(Nullable(Country)),
  is_active: Type.Optional(Type.Boolean({ default: true })),
  webhook_secret: Type.Optional(Nullable(WebhookSecret)),
  config: Type.Optional(Nullable(ConfigInput)),
});

export const UpdateConnectorBody = StrictObject({
  name: Type.Optional(Name),
  is_active: Type.Optional(Type.Boolean()),
  credentials: Type.Optional(Credentials),
  webhook_secret: Type.Optional(Nullable(WebhookSecret)),
  config: Type.Optional(Nullable(ConfigInput)),
});

export const MerchantParams = StrictObject({ merchant_id: Id('mrc') });
export const ConnectorParams = StrictObject({ merchant_id: Id('mrc'), connector_id: Id('conn') });
export const ListConnectorsQuery = StrictObject({ ...PaginationQuery });

export const ConnectorObject = StrictObject({
  id: Type.String(),
  merchant_id: Type.String(),
  provider_slug: Type.String(),
  name: Type.String(),
  country_code: Nullable(Type.String()),
  auth_method: StringEnum(AUTH_METHODS),
  is_test_mode: Type.Boolean(),
  is_active: Type.Boolean(),
  created_at: Timestamp,
  updated_at: Timestamp,
  webhook_url: Nullable(Type.String({ description: "Carries the connector's secret token: treat it as a secret" })),
  has_webhook_secret: Type.Boolean(),
  config: Nullable(
    StrictObject({
      card_brands: Type.Optional(Type.Array(Type.String())),
      installments_enabled: Type.Optional(Type.Boolean()),
    }),
  ),
});
