/**
 * Delivers events to every webhook endpoint registered for the event's (provider, account): rendered and signed by
 * the provider module at delivery time, POSTed after `webhookDelayMs`, retried twice (1 s, then 5 s) unless the
 * receiver answers 2xx. Every attempt is recorded on the event (GET /_sandbox/events shows them).
 */
import type { ProviderModule } from './providers/common';
import type { SandboxEvent, SandboxProvider, Store, WebhookEndpoint } from './store';

const RETRY_DELAYS_MS = [1000, 5000];
const DELIVERY_TIMEOUT_MS = 5000;

export class WebhookDispatcher {
  constructor(
    private readonly store: Store,
    private readonly modules: Record<SandboxProvider, ProviderModule>,
    private readonly later: (ms: number, fn: () => void) => void,
    private readonly delayMs: number,
    private readonly log: (line: string) => void,
  ) {}

  dispatch(event: SandboxEvent): void {
    for (const endpoint of this.store.endpoints) {
      if (endpoint.provider !== event.provider || endpoint.account !== event.account) continue;
      event.endpoints += 1;
      this.later(this.delayMs, () => void this.deliver(event, endpoint, 1));
    }
  }

  private async deliver(event: SandboxEvent, endpoint: WebhookEndpoint, attempt: number): Promise<void> {
    const payment = this.store.payments.get(event.paymentId) ?? null;
    const refund = event.refundId ? (this.store.refunds.get(event.refundId) ?? null) : null;
    const rendered = this.modules[event.provider].webhook(event, payment, refund, endpoint);
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), DELIVERY_TIMEOUT_MS);
    let status: number | null = null;
    let error: string | null = null;
    try {
      const response = await fetch(endpoint.url, {
        method: 'POST',
        body: rendered.body,
        signal: controller.signal,
        headers: {
          'content-type': 'application/json',
          'user-agent': `switchyard-sandbox/${event.provider}`,
          ...rendered.headers,
        },
      });
      status = response.status;
      await response.arrayBuffer().catch(() => undefined);
    } catch (caught) {
      error = controller.signal.aborted ? 'timeout' : (caught as Error).message;
    } finally {
      clearTimeout(timer);
    }
    event.deliveries.push({
      endpointId: endpoint.id,
      url: withoutQuery(endpoint.url),
      attempt,
      status,
      error,
      at: new Date().toISOString(),
    });
    this.log(`webhook ${event.provider} ${event.type} ${event.id} attempt ${attempt} → ${status ?? error}`);
    const delivered = status !== null && status >= 200 && status < 300;
    const retryIn = RETRY_DELAYS_MS[attempt - 1];
    if (!delivered && retryIn !== undefined && this.store.endpoints.includes(endpoint)) {
      this.later(retryIn, () => void this.deliver(event, endpoint, attempt + 1));
    }
  }
}

/** webhook_url carries the connector's secret token in its query string: never shown back. */
export function withoutQuery(url: string): string {
  const index = url.indexOf('?');
  return index < 0 ? url : `${url.slice(0, index)}?…`;
}
