/**
 * Providers by the name the API gives them, which says the real API each speaks ("Provider A — Stripe API"): the
 * catalog (GET /merchant/payment-providers) is read once per page load and shared by every page that names one.
 */
import { call, type Item, type Page } from './api';
import { useLoad } from './ui';

type Provider = Item<'getMerchantPaymentProviders'>;

let catalog: Promise<Map<string, string>> | undefined;

function providerNames(): Promise<Map<string, string>> {
  catalog ??= call<Page<Provider>>('GET', '/merchant/payment-providers?limit=100').then(
    (page) => new Map(page.data.map((provider) => [provider.slug, provider.display_name])),
    (error: unknown) => {
      catalog = undefined;
      throw error;
    },
  );
  return catalog;
}

/** A function naming a provider by its slug; the slug itself until the catalog is read. */
export function useProviderName(): (slug: string) => string {
  const loaded = useLoad(providerNames, []);
  return (slug) => (loaded.state === 'ready' ? (loaded.data.get(slug) ?? slug) : slug);
}
