/**
 * Standard Webhooks signing (https://www.standardwebhooks.com): the signed content is
 * `${webhook-id}.${webhook-timestamp}.${body}`, the key is the base64-decoded part of the secret after `whsec_`,
 * and the signature is `v1,` + base64(HMAC-SHA256). Several signatures are space-separated, so during a secret
 * rotation's overlap a receiver holding either secret verifies.
 */
import { createHmac, randomBytes } from 'node:crypto';

export const SECRET_PREFIX = 'whsec_';
/** 32 random bytes (the Standard Webhooks recommendation is 24 to 64). */
const SECRET_BYTES = 32;

export function generateSigningSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(SECRET_BYTES).toString('base64')}`;
}

function keyOf(secret: string): Buffer {
  if (!secret.startsWith(SECRET_PREFIX)) throw new Error('A signing secret starts with whsec_');
  return Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
}

export interface SignedHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/** One `v1,<sig>` per secret, space-separated, the current secret first. */
export function signPayload(
  secrets: readonly string[],
  id: string,
  timestampSeconds: number,
  body: string,
): SignedHeaders {
  const content = `${id}.${timestampSeconds}.${body}`;
  const signatures = secrets.map(
    (secret) => `v1,${createHmac('sha256', keyOf(secret)).update(content, 'utf8').digest('base64')}`,
  );
  return { 'webhook-id': id, 'webhook-timestamp': String(timestampSeconds), 'webhook-signature': signatures.join(' ') };
}
