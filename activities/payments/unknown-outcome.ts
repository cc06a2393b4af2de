/**
 * Resolving an unknown provider outcome (a timeout, a connection lost mid-request, a 5xx): the provider may have
 * charged, so before anything else the payment is looked up at the same provider under the attempt's idempotency
 * key. Shared by the charge attempt and the reconciler, so both read a lookup the same way.
 */
import { ApiError } from '../../domain/platform/errors';
import type { ConnectorAdapter, LookupRequest, ProviderCall, ProviderResult } from '../../domain/connectors/connector';
import { UnsupportedProviderError } from '../../domain/connectors/errors';
import { CardUnavailableError } from '../vault/card-source';

export const UNKNOWN_AFTER_LOOKUP_MESSAGE = 'No definitive answer, and the lookup by idempotency key could not tell';

/**
 * The attempt's real outcome: the sent call's own result when it was definitive; otherwise the lookup's finding.
 * Nothing stored under the key means the provider never processed the request: the original failure stands as a
 * safe one (network_error, or processing_error for a 5xx). A lookup that cannot tell keeps the outcome unknown.
 */
export async function resolveOutcome(
  adapter: ConnectorAdapter,
  call: ProviderCall,
  lookup: LookupRequest & { operation: 'authorize' | 'verify' },
  sent: ProviderResult,
): Promise<ProviderResult> {
  if (sent.outcome !== 'unknown') return sent;
  const looked = await adapter.lookup(call, lookup);
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
