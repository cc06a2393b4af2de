/**
 * Refused provider webhooks are cheap to refuse (review L15). Connector ids are not secret (API responses, the
 * webhook_url path), and every POST naming one with a wrong token used to cost a lookup and write a receipt row the
 * merchant's Dashboard lists. Two budgets, per minute, counted in process memory like unknown API keys:
 * - per client address (IPv6 per /64): refused deliveries (unknown connector or wrong token); past the budget the
 *   address gets 429 before any lookup;
 * - per connector: wrong-token deliveries naming it; past the budget they get 429 and no receipt, so a flood from
 *   many addresses neither fills the table nor the Dashboard.
 * A delivery with the right token is never counted nor refused by the per-connector budget: an attacker who knows
 * a connector id cannot silence its real webhooks (providers retry a 429 anyway).
 */
import type { AppDeps } from '../deps';
import { KeyGuessLimiter } from './key-guesses';

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
