/**
 * Signing keys of Dashboard access tokens (HS256 JWTs). DASHBOARD_JWT_KEY is the current key (32+ bytes, base64);
 * DASHBOARD_JWT_KEYS_PREVIOUS (comma-separated) are still accepted on verification during a rotation. Each key's
 * `kid` is a short public fingerprint, carried in the token header so verification picks the right key.
 *
 * Unset (local runs and tests only; production requires it, domain/platform/config.ts), the key is derived from
 * ENCRYPTION_KEY with HKDF under its own label, like the vault keys.
 */
import { createHash, hkdfSync } from 'node:crypto';

export interface SigningKey {
  readonly kid: string;
  readonly secret: Buffer;
}

export interface DashboardKeys {
  readonly current: SigningKey;
  /** current first, then the previous keys: everything verification accepts. */
  readonly accepted: readonly SigningKey[];
}

const MIN_KEY_BYTES = 32;

function signingKey(secret: Buffer): SigningKey {
  if (secret.length < MIN_KEY_BYTES) throw new Error(`Dashboard JWT keys must be at least ${MIN_KEY_BYTES} bytes`);
  return Object.freeze({ kid: createHash('sha256').update(secret).digest('base64url').slice(0, 12), secret });
}

export function loadDashboardKeys(
  env: { DASHBOARD_JWT_KEY?: string; DASHBOARD_JWT_KEYS_PREVIOUS?: string },
  masterKey: Buffer,
): DashboardKeys {
  const current = signingKey(
    env.DASHBOARD_JWT_KEY
      ? Buffer.from(env.DASHBOARD_JWT_KEY, 'base64')
      : Buffer.from(hkdfSync('sha256', masterKey, Buffer.alloc(0), 'switchyard dashboard jwt v1', 32)),
  );
  const previous = (env.DASHBOARD_JWT_KEYS_PREVIOUS ?? '')
    .split(',')
    .map((key) => key.trim())
    .filter(Boolean)
    .map((key) => signingKey(Buffer.from(key, 'base64')));
  return Object.freeze({ current, accepted: Object.freeze([current, ...previous]) });
}
