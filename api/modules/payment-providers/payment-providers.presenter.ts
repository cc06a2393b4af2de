/** Document 3's payment-provider catalog entry (list items are the summary). */
import type { PaymentProvider } from '../../../db/entities';

export function presentPaymentProviderSummary(provider: PaymentProvider) {
  return {
    id: provider.id,
    slug: provider.slug,
    display_name: provider.displayName,
    logo: provider.logo,
    is_active: provider.isActive,
    supported_auth_methods: provider.supportedAuthMethods as ('api_key' | 'oauth2')[] | null,
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
