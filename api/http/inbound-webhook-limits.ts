/**
 * Refused provider webhooks are cheap to refuse. Connector ids are not secret (API responses, the webhook_url path),
 * and every POST naming one with a wrong token used to cost a lookup and write a receipt row the merchant's Dashboard
 * lists. Two budgets, per minute, counted in process memory like unknown API keys, and spent only by deliveries that
 * are refused anyway:
 * - per client address (IPv6 per /64): deliveries naming an unknown connector, carrying a wrong token, or a bad
 *   signature or body; past the budget they get 429 after the one lookup by connector id, with no receipt;
 * - per connector: wrong-token deliveries naming it; past the budget they get 429 and no receipt, so a flood from
 *   many addresses neither fills the table nor the Dashboard.
 * A delivery with the right token and signature never meets either budget: neither a client sharing the provider's
 * address (or everyone, behind a proxy that is not in TRUSTED_PROXIES) nor one who knows a connector id can silence
 * its real webhooks.
 */
import type { AppDeps } from '../deps';
import { KeyGuessLimiter } from './auth';

export const REFUSED_WEBHOOKS_PER_ADDRESS = 30;
export const REFUSED_WEBHOOKS_PER_CONNECTOR = 20;

export interface InboundWebhookLimits {
  perAddress: KeyGuessLimiter;
  perConnector: KeyGuessLimiter;
}

const limits = new WeakMap<AppDeps, InboundWebhookLimits>();

/** One pair per app (AppDeps), made on first use. */
export function inboundWebhookLimitsOf(deps: AppDeps): InboundWebhookLimits {
  let found = limits.get(deps);
  if (!found) {
    found = {
      perAddress: new KeyGuessLimiter(
        REFUSED_WEBHOOKS_PER_ADDRESS,
        'Too many refused webhooks from this address; try again later',
      ),
      perConnector: new KeyGuessLimiter(
        REFUSED_WEBHOOKS_PER_CONNECTOR,
        'Too many webhooks with a wrong token for this connector; try again later',
      ),
    };
    limits.set(deps, found);
  }
  return found;
}
