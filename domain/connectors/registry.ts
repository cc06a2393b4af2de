/**
 * adapterFor(slug): the one adapter per provider. providerBaseUrl: where a connector's calls go — the sandbox PSP
 * (config.sandboxUrl + /<slug>) for test-mode connectors, the provider's live API otherwise.
 */
import type { ConnectorAdapter, ProviderResult } from './connector';
import { scrubProviderAnswer, scrubProviderText } from './provider-text';
import { checkoutAdapter } from './checkout/adapter';
import { UnsupportedProviderError } from './errors';
import { providerAAdapter } from './provider_a/adapter';
import { providerBAdapter } from './provider_b/adapter';
import { providerCAdapter } from './provider_c/adapter';
import { providerDAdapter } from './provider_d/adapter';

/**
 * The adapter with every provider text it returns scrubbed and bounded (provider-text.ts): whatever a
 * provider echoes, no card number or CVC reaches an attempt row, a workflow history or a response.
 */
function scrubbed(adapter: ConnectorAdapter): ConnectorAdapter {
  const answer =
    <A extends unknown[]>(call: (...args: A) => Promise<ProviderResult>) =>
    async (...args: A) =>
      scrubProviderAnswer(await call(...args));
  return {
    slug: adapter.slug,
    reads: adapter.reads,
    authorize: answer(adapter.authorize.bind(adapter)),
    capture: answer(adapter.capture.bind(adapter)),
    void: answer(adapter.void.bind(adapter)),
    refund: answer(adapter.refund.bind(adapter)),
    verifyCard: answer(adapter.verifyCard.bind(adapter)),
    ...(adapter.retrieve ? { retrieve: answer(adapter.retrieve.bind(adapter)) } : {}),
    async lookup(call, request) {
      const looked = await adapter.lookup(call, request);
      return looked.status === 'found' ? { ...looked, result: scrubProviderAnswer(looked.result) } : looked;
    },
    parseWebhook: (request) => adapter.parseWebhook(request),
    async testCredentials(call) {
      const tested = await adapter.testCredentials(call);
      return { ...tested, message: scrubProviderText(tested.message) };
    },
  };
}

const ADAPTERS: Readonly<Record<string, ConnectorAdapter>> = {
  provider_a: scrubbed(providerAAdapter),
  provider_b: scrubbed(providerBAdapter),
  provider_c: scrubbed(providerCAdapter),
  provider_d: scrubbed(providerDAdapter),
  checkout: scrubbed(checkoutAdapter),
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
