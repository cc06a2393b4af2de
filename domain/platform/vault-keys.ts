/**
 * The card vault's keys: the P-256 key pair browsers encrypt card data to (its public half is published in
 * every browser session), and the HMAC key of the card fingerprint that deduplicates enrolment.
 *
 * Both come from configuration: VAULT_PRIVATE_KEY (PKCS#8 PEM, or its DER in base64) and CARD_FINGERPRINT_KEY
 * (32 bytes, base64). When unset they are derived from ENCRYPTION_KEY with HKDF-SHA256 under distinct labels,
 * so a local run (key generated into .data/) and the tests need nothing more. Production requires both
 * (domain/platform/config.ts): the derived fingerprint key would change with a master-key rotation, and enrolment would stop
 * deduplicating.
 */
import { createHmac, createPrivateKey, hkdfSync, type KeyObject } from 'node:crypto';
import { deriveP256PrivateKey, jwkThumbprint, publicJwkOf, type EcPublicJwk } from './jwe';

export interface VaultKeys {
  readonly privateKey: KeyObject;
  readonly publicJwk: EcPublicJwk;
  /** RFC 7638 thumbprint of publicJwk; the JWE `kid`. */
  readonly kid: string;
  readonly fingerprintKey: Buffer;
}

function parsePrivateKey(raw: string): KeyObject {
  const text = raw.trim();
  const key = text.startsWith('-----BEGIN')
    ? createPrivateKey({ key: text, format: 'pem' })
    : createPrivateKey({ key: Buffer.from(text, 'base64'), format: 'der', type: 'pkcs8' });
  publicJwkOf(key); // throws unless EC P-256
  return key;
}

export function loadVaultKeys(
  env: { VAULT_PRIVATE_KEY?: string; CARD_FINGERPRINT_KEY?: string },
  masterKey: Buffer,
): VaultKeys {
  const privateKey = env.VAULT_PRIVATE_KEY
    ? parsePrivateKey(env.VAULT_PRIVATE_KEY)
    : deriveP256PrivateKey(masterKey, 'switchyard vault ECDH-ES P-256 v1');
  let fingerprintKey: Buffer;
  if (env.CARD_FINGERPRINT_KEY) {
    fingerprintKey = Buffer.from(env.CARD_FINGERPRINT_KEY, 'base64');
    if (fingerprintKey.length !== 32) throw new Error('CARD_FINGERPRINT_KEY must be 32 bytes, base64-encoded');
  } else {
    fingerprintKey = Buffer.from(hkdfSync('sha256', masterKey, Buffer.alloc(0), 'switchyard card fingerprint v1', 32));
  }
  const publicJwk = publicJwkOf(privateKey);
  return Object.freeze({
    privateKey,
    publicJwk: Object.freeze(publicJwk),
    kid: jwkThumbprint(publicJwk),
    fingerprintKey,
  });
}

/** Keyed fingerprint of a PAN: equal for the same card, useless without the key (no dictionary over 10^16 PANs). */
export function cardFingerprint(keys: Pick<VaultKeys, 'fingerprintKey'>, pan: string): string {
  return createHmac('sha256', keys.fingerprintKey).update(`pan:${pan}`, 'utf8').digest('base64url');
}
