/**
 * provider_c's OAuth access tokens, per (base URL, client): bounded, so a worker serving many OAuth connectors
 * (or credentials rotated many times) cannot grow it without limit. Expired tokens go first, then the least
 * recently used; an evicted client just exchanges its credentials again on its next call.
 */
export class TokenCache {
  private readonly entries = new Map<string, { token: string; expiresAt: number }>();

  constructor(readonly maxEntries: number) {}

  get size(): number {
    return this.entries.size;
  }

  get(slot: string, now = Date.now()): string | undefined {
    const entry = this.entries.get(slot);
    if (!entry) return undefined;
    this.entries.delete(slot);
    if (entry.expiresAt <= now) return undefined;
    this.entries.set(slot, entry); // most recently used last
    return entry.token;
  }

  set(slot: string, token: string, expiresAt: number, now = Date.now()): void {
    this.entries.delete(slot);
    if (this.entries.size >= this.maxEntries) {
      for (const [key, entry] of this.entries) if (entry.expiresAt <= now) this.entries.delete(key);
    }
    // Map iteration is insertion order, and get() re-inserts: the first key is the least recently used.
    while (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(slot, { token, expiresAt });
  }
}
