/**
 * adapterFor(slug): the one adapter per provider. providerBaseUrl: where a connector's calls go — the sandbox PSP
 * (config.sandboxUrl + /<slug>) for test-mode connectors, the provider's live API otherwise.
 */
import type { ConnectorAdapter } from './connector';
import { checkoutAdapter } from './checkout/adapter';
import { UnsupportedProviderError } from './errors';
import { providerAAdapter } from './provider_a/adapter';
import { providerBAdapter } from './provider_b/adapter';
import { providerCAdapter } from './provider_c/adapter';
import { providerDAdapter } from './provider_d/adapter';

const ADAPTERS: Readonly<Record<string, ConnectorAdapter>> = {
  provider_a: providerAAdapter,
  provider_b: providerBAdapter,
  provider_c: providerCAdapter,
  provider_d: providerDAdapter,
  checkout: checkoutAdapter,
};

/** Live API hosts (the catalog's provider domains; unreachable from development machines). */
export const LIVE_BASE_URLS: Readonly<Record<string, string>> = {
  provider_a: 'https://api.provider-a.example',
  provider_b: 'https://checkout.provider-b.example',
  provider_c: 'https://api.provider-c.example',
  provider_d: 'https://api.provider-d.example',
  checkout: 'https://api.checkout.example',
};

/** provider_e is inactive in the catalog and has no adapter. */
export function adapterFor(slug: string): ConnectorAdapter {
  const adapter = ADAPTERS[slug];
  if (!adapter) throw new UnsupportedProviderError(slug);
  return adapter;
}

export function hasAdapter(slug: string): boolean {
  return slug in ADAPTERS;
}

export function providerBaseUrl(slug: string, isTestMode: boolean, config: { sandboxUrl: string }): string {
  if (isTestMode) return `${config.sandboxUrl}/${slug}`;
  const live = LIVE_BASE_URLS[slug];
  if (!live) throw new UnsupportedProviderError(slug);
  return live;
}
