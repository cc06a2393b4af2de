/**
 * Temporal workflow history as searchable text, for tests that check what a history must never hold (secrets,
 * card data). Payload bytes come back from the client as Node Buffers, whose own toJSON runs before a JSON.stringify
 * replacer sees them and turns them into `{type: "Buffer", data: [byte values]}`: a search over that text finds
 * nothing, whatever the payload holds. So the replacer reads the raw value from its holder (`this[key]`) and writes
 * bytes as UTF-8 text and as base64; `data` that is already a string (a message's own toJSON) is base64, decoded.
 */
export function historyText(history: unknown): string {
  return JSON.stringify(history, function (this: Record<string, unknown>, key: string, value: unknown) {
    const raw = this[key];
    if (raw instanceof Uint8Array) {
      const bytes = Buffer.from(raw);
      return `${bytes.toString('utf8')} ${bytes.toString('base64')}`;
    }
    if (key === 'data' && typeof value === 'string') return Buffer.from(value, 'base64').toString('utf8');
    return value;
  });
}
