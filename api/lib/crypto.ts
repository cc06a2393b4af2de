/**
 * Envelope encryption for values kept secret at rest: each value gets its own random data key
 * (AES-256-GCM), and that data key is stored wrapped by the master key. Rotating the master key means
 * re-wrapping data keys, never re-encrypting the data itself.
 *
 * Stored format (text): v1.<masterKeyId>.<wrappedDataKey>.<iv>.<tag>.<ciphertext>, each part base64url.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export function decodeMasterKey(encoded: string): Buffer {
  const key = Buffer.from(encoded, 'base64');
  if (key.length !== 32) throw new Error('ENCRYPTION_KEY must be 32 bytes, base64-encoded');
  return key;
}

function masterKeyId(masterKey: Buffer): string {
  return createHash('sha256').update(masterKey).digest('base64url').slice(0, 8);
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

export function encryptSecret(masterKey: Buffer, plaintext: string): string {
  const dataKey = randomBytes(32);
  const wrapped = seal(masterKey, dataKey);
  const body = seal(dataKey, Buffer.from(plaintext, 'utf8'));
  const wrappedDataKey = Buffer.concat([wrapped.iv, wrapped.tag, wrapped.ciphertext]);
  return ['v1', masterKeyId(masterKey), wrappedDataKey, body.iv, body.tag, body.ciphertext]
    .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
    .join('.');
}

export function decryptSecret(masterKey: Buffer, stored: string): string {
  const [version, keyId, wrappedDataKey, iv, tag, ciphertext] = stored.split('.');
  if (version !== 'v1' || ciphertext === undefined) throw new Error('Unsupported ciphertext format');
  if (keyId !== masterKeyId(masterKey)) throw new Error('Ciphertext was sealed under a different master key');
  const wrapped = Buffer.from(wrappedDataKey, 'base64url');
  const dataKey = open(masterKey, wrapped.subarray(0, 12), wrapped.subarray(12, 28), wrapped.subarray(28));
  return open(dataKey, Buffer.from(iv, 'base64url'), Buffer.from(tag, 'base64url'), Buffer.from(ciphertext, 'base64url')).toString('utf8');
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

