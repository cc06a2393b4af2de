/**
 * Budgets of requests refused anyway, counted per minute in process memory, not in PostgreSQL: a database write per
 * refusal is the cost they avoid (so with N API processes the bound is N times). Only a refusal spends or meets a
 * budget, so a client that gets through is never held back by the ones it shares an address with. Two kinds: API
 * keys that match no active key (per client address), and refused provider webhooks (per address and per connector).
 */
import { errors } from '../../domain/platform/errors';
import type { AppDeps } from '../deps';

/*
 * Unknown API keys are cheap to refuse. A well-formed key that matches nothing costs an indexed SELECT and a pooled
 * connection (once: the auth cache remembers it as unknown for a few seconds), so each client address (IPv6 per /64)
 * gets UNKNOWN_API_KEYS_PER_IP misses per minute; past that, its keys that match nothing get 429 instead of 401 until
 * the window ends. Only a miss spends or meets the budget: a valid key is answered from the auth cache or its lookup
 * before the budget is ever consulted, so a guesser cannot lock out the clients that share its address (CGNAT, an
 * office NAT, or everyone behind a proxy that is not in TRUSTED_PROXIES).
 */
const WINDOW_MS = 60_000;
const MAX_TRACKED = 10_000;

export class RefusalBudget {
  private readonly windows = new Map<string, { start: number; misses: number }>();

  constructor(
    private readonly limit: number,
    private readonly message = 'Too many unknown API keys from this address; try again later',
  ) {}

  /**
   * Counts one miss for this address (or whatever the budget counts by); 429 instead when it has already missed
   * `limit` times in its current window. Call it only for a request already known to be refused.
   */
  spend(address: string, now = Date.now()): void {
    const window = this.windows.get(address);
    if (window && now - window.start < WINDOW_MS) {
      if (window.misses >= this.limit) {
        const retryAfter = Math.max(1, Math.ceil((window.start + WINDOW_MS - now) / 1000));
        throw errors.rateLimited(retryAfter, this.message);
      }
      window.misses += 1;
      return;
    }
    this.windows.delete(address);
    // Maps iterate in insertion order: the first entry is the oldest window.
    while (this.windows.size >= MAX_TRACKED) this.windows.delete(this.windows.keys().next().value as string);
    this.windows.set(address, { start: now, misses: 1 });
  }
}

const keyGuesses = new WeakMap<AppDeps, RefusalBudget>();

/** One unknown-key budget per app (AppDeps), made on first use, so nothing that builds AppDeps has to know about it. */
export function keyGuessesOf(deps: AppDeps): RefusalBudget {
  let budget = keyGuesses.get(deps);
  if (!budget) keyGuesses.set(deps, (budget = new RefusalBudget(deps.config.rateLimit.unknownKeysPerIp)));
  return budget;
}

/*
 * Refused provider webhooks are cheap to refuse. Connector ids are not secret (API responses, the webhook_url path),
 * and every POST naming one with a wrong token used to cost a lookup and write a receipt row the merchant's Dashboard
 * lists. Two budgets, spent only by deliveries that are refused anyway:
 * - per client address (IPv6 per /64): deliveries naming an unknown connector, carrying a wrong token, or a bad
 *   signature or body; past the budget they get 429 after the one lookup by connector id, with no receipt;
 * - per connector: wrong-token deliveries naming it; past the budget they get 429 and no receipt, so a flood from
 *   many addresses neither fills the table nor the Dashboard.
 * A delivery with the right token and signature never meets either budget: neither a client sharing the provider's
 * address (or everyone, behind a proxy that is not in TRUSTED_PROXIES) nor one who knows a connector id can silence
 * its real webhooks.
 */
export const REFUSED_WEBHOOKS_PER_ADDRESS = 30;
export const REFUSED_WEBHOOKS_PER_CONNECTOR = 20;

export interface InboundWebhookLimits {
  perAddress: RefusalBudget;
  perConnector: RefusalBudget;
}

const limits = new WeakMap<AppDeps, InboundWebhookLimits>();

/** One pair per app (AppDeps), made on first use. */
export function inboundWebhookLimitsOf(deps: AppDeps): InboundWebhookLimits {
  let found = limits.get(deps);
  if (!found) {
    found = {
      perAddress: new RefusalBudget(
        REFUSED_WEBHOOKS_PER_ADDRESS,
        'Too many refused webhooks from this address; try again later',
      ),
      perConnector: new RefusalBudget(
        REFUSED_WEBHOOKS_PER_CONNECTOR,
        'Too many webhooks with a wrong token for this connector; try again later',
      ),
    };
    limits.set(deps, found);
  }
  return found;
}
