/**
 * Provider-side idempotency, shared by every provider API: the same key with the same request replays the stored
 * reply and records a `replayed: true` ledger entry — never a second charge. The same key with a different request,
 * or while the first is still running, gets the provider's own conflict error. 5xx replies and timeouts are not
 * stored (the caller may retry them), matching what real providers do.
 */
import { createHash } from 'node:crypto';
import { HANG, type HandlerResult, type Reply } from './http';
import type { LedgerEntry, SandboxProvider, Store } from './store';

export type LedgerDraft = Omit<
  LedgerEntry,
  'id' | 'at' | 'replayed' | 'provider' | 'account' | 'idempotency_key' | 'http_status'
>;

export interface Processed {
  /** What goes back on the wire. */
  reply: HandlerResult;
  entry: LedgerDraft;
  /** What the provider keeps under the key when it differs from the wire reply (it processed, the answer was lost). */
  stored?: Reply;
}

export interface Scope {
  provider: SandboxProvider;
  account: string;
  key: string | null;
  /** What the key is bound to: the operation and its parameters. */
  request: unknown;
  /** The provider's own "key reused with other parameters / still in progress" reply. */
  conflict: (kind: 'mismatch' | 'in_flight') => Reply;
}

export async function idempotent(store: Store, scope: Scope, run: () => Promise<Processed>): Promise<HandlerResult> {
  const base = { provider: scope.provider, account: scope.account, idempotency_key: scope.key };
  if (scope.key === null) {
    const processed = await run();
    record(store, base, processed);
    return processed.reply;
  }
  const slot = slotOf(scope.provider, scope.account, scope.key);
  const fingerprint = fingerprintOf(scope.request);
  const stored = store.idempotent.get(slot);
  if (stored || store.inFlight.has(slot)) {
    if (stored && stored.fingerprint === fingerprint) {
      const { id: _id, at: _at, ...original } = stored.entry;
      store.record({ ...original, replayed: true });
      return stored.reply;
    }
    const kind = stored ? 'mismatch' : 'in_flight';
    const reply = scope.conflict(kind);
    store.record({
      ...base,
      operation: stored?.entry.operation ?? 'authorize',
      reference: null,
      amount: null,
      currency: null,
      payment_method: null,
      card_last4: null,
      outcome: 'rejected',
      reason: `idempotency_${kind}`,
      provider_reference: null,
      http_status: reply.status,
    });
    return reply;
  }
  store.inFlight.add(slot);
  try {
    const processed = await run();
    const entry = record(store, base, processed);
    const kept = processed.stored ?? processed.reply;
    if (kept !== HANG && kept.status < 500) store.idempotent.set(slot, { fingerprint, reply: kept, entry });
    return processed.reply;
  } finally {
    store.inFlight.delete(slot);
  }
}

/** Where a provider account's idempotency key lives in the store (lookups by key read the same slot). */
export const slotOf = (provider: SandboxProvider, account: string, key: string) =>
  `${provider}\u0000${account}\u0000${key}`;

function record(
  store: Store,
  base: Pick<LedgerEntry, 'provider' | 'account' | 'idempotency_key'>,
  processed: Processed,
): LedgerEntry {
  const status = processed.reply === HANG ? null : processed.reply.status;
  return store.record({ ...base, ...processed.entry, http_status: status });
}

export function fingerprintOf(value: unknown): string {
  return createHash('sha256').update(stableStringify(value)).digest('hex');
}

function stableStringify(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableStringify).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableStringify(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
