import { Type } from '@sinclair/typebox';
import { PROVIDER_PAYMENT_METHODS } from '../../../db/entities';
import { MerchantIdField, Nullable, PaginationQuery, StrictObject, StringEnum } from '../../http/schema';

/** The catalog id (pp_provider_a) or, for convenience, the slug (provider_a). */
export const PaymentProviderParams = StrictObject({
  provider_id: Type.String({ pattern: '^[a-z0-9_]+$', maxLength: 64, description: 'pp_… id or the provider slug' }),
});

export const ListPaymentProvidersQuery = StrictObject({ ...PaginationQuery, merchant_id: MerchantIdField });
export const ListOrgPaymentProvidersQuery = StrictObject({ ...PaginationQuery });
export const GetPaymentProviderQuery = StrictObject({ merchant_id: MerchantIdField });

const AuthMethods = Nullable(Type.Array(StringEnum(['api_key', 'oauth2'])));

/** A JSON Schema (draft 2020-12 subset: type, properties, required, pattern, minLength, maxLength, description). */
const JsonSchema = Type.Unsafe<Record<string, unknown>>({
  type: 'object',
  description: 'JSON Schema of the `credentials` object',
});

/** What Document 3 lists for list items, plus what a connector form needs (additive fields only). */
export const PaymentProviderSummaryObject = StrictObject({
  id: Type.String(),
  slug: Type.String(),
  display_name: Type.String(),
  logo: Nullable(Type.String()),
  is_active: Type.Boolean(),
  supported_auth_methods: AuthMethods,
  credential_schemas: StrictObject(
    { api_key: Type.Optional(JsonSchema), oauth2: Type.Optional(JsonSchema) },
    {
      description:
        "Per supported auth_method, the JSON Schema that a connector's `credentials` must match (POST/PATCH …/connectors); {} when the provider has no adapter",
    },
  ),
  webhook_secret_format: Nullable(
    Type.String({ description: "What the connector's webhook_secret looks like for this provider; null when unknown" }),
  ),
});

/** The full entry: the documented OAuth fields plus the capabilities routing and connectors check (additive). */
export const PaymentProviderObject = StrictObject({
  ...PaymentProviderSummaryObject.properties,
  oauth_authorization_url: Nullable(Type.String()),
  oauth_token_url: Nullable(Type.String()),
  oauth_scopes: Nullable(Type.String()),
  oauth_pkce_required: Type.Boolean(),
  supported_card_brands: Type.Array(Type.String()),
  supported_payment_methods: Type.Array(StringEnum(PROVIDER_PAYMENT_METHODS)),
  supported_currencies: Type.Array(Type.String()),
  supported_countries: Type.Array(Type.String()),
  supports_installments: Type.Boolean(),
});
