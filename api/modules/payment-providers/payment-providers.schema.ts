import { Type } from '@sinclair/typebox';
import { PROVIDER_PAYMENT_METHODS } from '../../../db/entities';
import { MerchantIdField, Nullable, PaginationQuery, StrictObject, StringEnum } from '../../http/schema';

/** The catalog id (pp_provider_a) or, for convenience, the slug (provider_a). */
export const PaymentProviderParams = StrictObject({
  provider_id: Type.String({ pattern: '^[a-z0-9_]+$', maxLength: 64, description: 'pp_… id or the provider slug' }),
});

export const ListPaymentProvidersQuery = StrictObject({ ...PaginationQuery, merchant_id: MerchantIdField });
export const GetPaymentProviderQuery = StrictObject({ merchant_id: MerchantIdField });

const AuthMethods = Nullable(Type.Array(StringEnum(['api_key', 'oauth2'])));

/** List items carry exactly what Document 3 lists for them. */
export const PaymentProviderSummaryObject = StrictObject({
  id: Type.String(),
  slug: Type.String(),
  display_name: Type.String(),
  logo: Nullable(Type.String()),
  is_active: Type.Boolean(),
  supported_auth_methods: AuthMethods,
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
