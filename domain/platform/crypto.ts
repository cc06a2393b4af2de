/**
 * Envelope encryption for values kept secret at rest: each value gets its own random data key
 * (AES-256-GCM), and that data key is stored wrapped by the master key. Rotating the master key means
 * re-wrapping data keys, never re-encrypting the data itself.
 *
 * Stored format (text): v1.<masterKeyId>.<wrappedDataKey>.<iv>.<tag>.<ciphertext>, each part base64url.
 *
 * A Keyring holds the current master key plus previous ones: values are sealed under the current key and
 * opened under whichever key their masterKeyId names, so a rotation can proceed row by row (rewrapSecret).
 * Every function taking key material accepts a bare master key (a one-key ring) or a Keyring.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export function decodeMasterKey(encoded: string): Buffer {
  const key = Buffer.from(encoded, 'base64');
  if (key.length !== 32) throw new Error('ENCRYPTION_KEY must be 32 bytes, base64-encoded');
  return key;
}

/** A short public fingerprint of a master key, stored in every value it wraps. */
export function masterKeyId(masterKey: Buffer): string {
  return createHash('sha256').update(masterKey).digest('base64url').slice(0, 8);
}

export interface Keyring {
  /** New values and re-wraps use this key. */
  readonly current: Buffer;
  /** Still accepted for decryption until every value has been re-wrapped (npm run rotate-keys). */
  readonly previous: readonly Buffer[];
}

export type KeyMaterial = Buffer | Keyring;

export function keyring(current: Buffer, previous: readonly Buffer[] = []): Keyring {
  return Object.freeze({ current, previous: Object.freeze([...previous]) });
}

const asKeyring = (keys: KeyMaterial): Keyring => (Buffer.isBuffer(keys) ? { current: keys, previous: [] } : keys);

function masterKeyFor(keys: KeyMaterial, keyId: string): Buffer {
  const ring = asKeyring(keys);
  const key = [ring.current, ...ring.previous].find((candidate) => masterKeyId(candidate) === keyId);
  if (!key) throw new Error(`Ciphertext was sealed under a master key that is not configured (key id ${keyId})`);
  return key;
}

interface StoredParts {
  keyId: string;
  wrappedDataKey: string;
  /** iv, tag and ciphertext of the data, kept as stored (base64url) so a re-wrap leaves them byte-identical. */
  body: [string, string, string];
}

function parseStored(stored: string): StoredParts {
  const parts = stored.split('.');
  const [version, keyId, wrappedDataKey, iv, tag, ciphertext] = parts;
  if (parts.length !== 6 || version !== 'v1') throw new Error('Unsupported ciphertext format');
  return { keyId, wrappedDataKey, body: [iv, tag, ciphertext] };
}

function wrapDataKey(masterKey: Buffer, dataKey: Buffer): string {
  const wrapped = seal(masterKey, dataKey);
  return Buffer.concat([wrapped.iv, wrapped.tag, wrapped.ciphertext]).toString('base64url');
}

function unwrapDataKey(masterKey: Buffer, wrappedDataKey: string): Buffer {
  const wrapped = Buffer.from(wrappedDataKey, 'base64url');
  return open(masterKey, wrapped.subarray(0, 12), wrapped.subarray(12, 28), wrapped.subarray(28));
}

/** The master key id a stored value names (for rotation progress; not a secret). */
export function keyIdOf(stored: string): string {
  return parseStored(stored).keyId;
}

function seal(key: Buffer, plaintext: Buffer): { iv: Buffer; tag: Buffer; ciphertext: Buffer } {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return { iv, tag: cipher.getAuthTag(), ciphertext };
}

function open(key: Buffer, iv: Buffer, tag: Buffer, ciphertext: Buffer): Buffer {
  const decipher = createDecipheriv('aes-256-gcm', key, iv);
  decipher.setAuthTag(tag);
  return Buffer.concat([decipher.update(ciphertext), decipher.final()]);
}

export function encryptSecret(keys: KeyMaterial, plaintext: string): string {
  const masterKey = asKeyring(keys).current;
  const dataKey = randomBytes(32);
  const body = seal(dataKey, Buffer.from(plaintext, 'utf8'));
  return [
    'v1',
    masterKeyId(masterKey),
    wrapDataKey(masterKey, dataKey),
    ...[body.iv, body.tag, body.ciphertext].map((part) => part.toString('base64url')),
  ].join('.');
}

export function decryptSecret(keys: KeyMaterial, stored: string): string {
  const {
    keyId,
    wrappedDataKey,
    body: [iv, tag, ciphertext],
  } = parseStored(stored);
  const dataKey = unwrapDataKey(masterKeyFor(keys, keyId), wrappedDataKey);
  return open(
    dataKey,
    Buffer.from(iv, 'base64url'),
    Buffer.from(tag, 'base64url'),
    Buffer.from(ciphertext, 'base64url'),
  ).toString('utf8');
}

/**
 * Re-wraps the value's data key under the keyring's current master key. The data itself is not re-encrypted:
 * iv, tag and ciphertext come back byte-identical. A value already under the current key is returned as is.
 */
export function rewrapSecret(keys: Keyring, stored: string): string {
  const { keyId, wrappedDataKey, body } = parseStored(stored);
  const currentId = masterKeyId(keys.current);
  if (keyId === currentId) return stored;
  const dataKey = unwrapDataKey(masterKeyFor(keys, keyId), wrappedDataKey);
  return ['v1', currentId, wrapDataKey(keys.current, dataKey), ...body].join('.');
}

/** SHA-256 of a high-entropy secret (API keys): enough for lookup, and never reversible. */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

export function constantTimeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
