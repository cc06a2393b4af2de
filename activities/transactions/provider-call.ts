/**
 * A provider call made from an activity: it heartbeats while in flight, and an unknown outcome (a timeout, a
 * connection lost mid-request, a 5xx) is looked up at the same provider under the same idempotency key before
 * anything else (the provider may have charged). Shared by the charge attempt, card verification, captures, voids,
 * refunds and the reconciler, so all read a lookup the same way.
 */
import { Context } from '@temporalio/activity';
import {
  CardUnavailableError,
  type ConnectorAdapter,
  type LookupOperation,
  type LookupRequest,
  type LookupResult,
  type ProviderCall,
  type ProviderResult,
  UnsupportedProviderError,
} from '../../domain/connectors/connector';
import { ApiError } from '../../domain/platform/errors';

/**
 * Heartbeats while a provider call is in flight. The workflows give these activities a short heartbeat timeout,
 * so when the worker dies mid-call Temporal retries the activity (same provider idempotency key) within seconds
 * instead of waiting out the whole start-to-close timeout.
 */
export async function heartbeatWhile<T>(work: () => Promise<T>, everyMs = 2000): Promise<T> {
  const context = Context.current();
  context.heartbeat();
  const timer = setInterval(() => context.heartbeat(), everyMs);
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}

// ── An unknown outcome ───────────────────────────────────────────────────────────────────────────────────────

export const UNKNOWN_AFTER_LOOKUP_MESSAGE = 'No definitive answer, and the lookup by idempotency key could not tell';

/** rawCode of a lookup that found nothing where the provider's read may not show the request yet. */
export const NOT_VISIBLE_YET = 'lookup_not_visible_yet';

/**
 * What a lookup's finding means, `sinceSentMs` after the request was sent: the one reading every caller (the charge
 * attempt, the operation workflow, the reconciler) makes. `not_found` stands as "never processed" only where the
 * provider's read sees work in flight, or once its grace period has passed (ConnectorAdapter.reads); before that the
 * request may still be on its way into the read, so the lookup cannot tell (unknown: asked again later).
 */
export function readLookup(
  adapter: Pick<ConnectorAdapter, 'reads'>,
  operation: LookupOperation,
  looked: LookupResult,
  sinceSentMs: number,
): LookupResult {
  if (looked.status !== 'not_found') return looked;
  const visibility = adapter.reads[operation];
  if (visibility.seesInFlight || sinceSentMs >= visibility.graceMs) return looked;
  return { status: 'unknown', rawCode: NOT_VISIBLE_YET };
}

/**
 * The attempt's real outcome: the call's own result when it was definitive; otherwise the lookup's finding, read
 * by readLookup. Nothing under the key (where that means never processed) leaves the original failure as a safe one
 * (network_error, or processing_error for a 5xx). A lookup that cannot tell keeps the outcome unknown.
 */
export async function resolveOutcome(
  adapter: ConnectorAdapter,
  call: ProviderCall,
  lookup: LookupRequest & { operation: 'authorize' | 'verify' },
  send: () => Promise<ProviderResult>,
): Promise<ProviderResult> {
  const sentAt = Date.now();
  const sent = await send();
  if (sent.outcome !== 'unknown') return sent;
  const looked = readLookup(adapter, lookup.operation, await adapter.lookup(call, lookup), Date.now() - sentAt);
  if (looked.status === 'found') return looked.result;
  if (looked.status === 'not_found') {
    return {
      ...sent,
      outcome: sent.rawCode?.startsWith('http_') ? 'processing_error' : 'network_error',
      rawMessage: `${sent.rawMessage ?? 'No definitive answer'}; the provider holds no payment under the key`,
    };
  }
  return { ...sent, rawMessage: `${UNKNOWN_AFTER_LOOKUP_MESSAGE} (${sent.rawCode ?? '?'}, lookup ${looked.rawCode})` };
}

/**
 * Errors that make an attempt impossible for a business reason, before anything is sent: the attempt fails and the
 * cascade may move on. Anything else (the database, the key ring, a bug) is thrown, so Temporal retries the activity.
 */
export function isUnusableAttemptSetup(error: unknown): boolean {
  if (error instanceof CardUnavailableError || error instanceof UnsupportedProviderError) return true;
  // loadConnectorSecrets answers a missing (deleted) connector with the API's 404 error.
  return error instanceof ApiError && error.status === 404;
}
