/**
 * Errors the adapters raise. Provider declines are never errors: they are ProviderResults. These are for the
 * transport (mapped to network_error or unknown by the adapters themselves) and for inbound webhooks.
 */
export { InvalidWebhookError } from './connector';

/**
 * The provider could not be reached or did not answer within the call's timeout. Never carries request data.
 * refused: the request was never sent (connection refused, DNS failure). timeout / connection (reset mid-exchange):
 * it may have been sent and processed.
 */
export class ProviderUnreachableError extends Error {
  constructor(
    readonly kind: 'refused' | 'timeout' | 'connection',
    message: string,
  ) {
    super(message);
    this.name = 'ProviderUnreachableError';
  }
}

/** adapterFor() on a slug without an adapter (provider_e is inactive and has none). */
export class UnsupportedProviderError extends Error {
  constructor(readonly slug: string) {
    super(`No connector adapter for provider ${slug}`);
    this.name = 'UnsupportedProviderError';
  }
}

/**
 * The signature is valid but the event is one we do not act on (e.g. an intermediate status). The receiver should
 * acknowledge it (2xx) so the provider stops retrying, and ignore it. Not an InvalidWebhookError.
 */
export class UnhandledWebhookEventError extends Error {
  constructor(readonly eventType: string) {
    super(`Unhandled webhook event type ${eventType}`);
    this.name = 'UnhandledWebhookEventError';
  }
}
