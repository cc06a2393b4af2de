/** Document 3's payment-provider catalog entry (list items are the summary). */
import type { PaymentProvider } from '../../../db/entities';
import { WEBHOOK_SECRET_FORMATS } from '../../../domain/connectors/credentials';
import { credentialSchema, isProviderSlug } from '../connectors/connectors.rules';
import { AUTH_METHODS, type AuthMethod } from '../connectors/connectors.schema';

/** The credential shapes a connector form renders, as plain JSON Schema (TypeBox's own markers dropped). */
function credentialSchemas(provider: PaymentProvider): Partial<Record<AuthMethod, Record<string, unknown>>> {
  if (!isProviderSlug(provider.slug)) return {};
  const slug = provider.slug;
  const methods = (provider.supportedAuthMethods ?? AUTH_METHODS).filter((method): method is AuthMethod =>
    (AUTH_METHODS as readonly string[]).includes(method),
  );
  return Object.fromEntries(
    methods.map((method) => [
      method,
      JSON.parse(JSON.stringify(credentialSchema(slug, method))) as Record<string, unknown>,
    ]),
  );
}

/**
 * The real API each sandbox provider speaks (docs/sandbox.md): a provider is always named with it, "Provider A —
 * Stripe API", so staff and integrators know which provider's documentation applies.
 */
const REAL_API: Record<string, string> = {
  provider_a: 'Stripe',
  provider_b: 'Adyen',
  provider_c: 'Mercado Pago',
  provider_d: 'Authorize.net',
  checkout: 'Checkout.com',
};

const displayName = (provider: PaymentProvider) =>
  REAL_API[provider.slug] ? `${provider.displayName} — ${REAL_API[provider.slug]} API` : provider.displayName;

export function presentPaymentProviderSummary(provider: PaymentProvider) {
  return {
    id: provider.id,
    slug: provider.slug,
    display_name: displayName(provider),
    logo: provider.logo,
    is_active: provider.isActive,
    supported_auth_methods: provider.supportedAuthMethods as ('api_key' | 'oauth2')[] | null,
    credential_schemas: credentialSchemas(provider),
    webhook_secret_format: isProviderSlug(provider.slug) ? WEBHOOK_SECRET_FORMATS[provider.slug] : null,
  };
}

export function presentPaymentProvider(provider: PaymentProvider) {
  return {
    ...presentPaymentProviderSummary(provider),
    oauth_authorization_url: provider.oauthAuthorizationUrl,
    oauth_token_url: provider.oauthTokenUrl,
    oauth_scopes: provider.oauthScopes,
    oauth_pkce_required: provider.oauthPkceRequired,
    supported_card_brands: provider.supportedCardBrands,
    supported_payment_methods: provider.supportedPaymentMethods,
    supported_currencies: provider.supportedCurrencies,
    supported_countries: provider.supportedCountries,
    supports_installments: provider.supportsInstallments,
  };
}
