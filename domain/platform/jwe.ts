/**
 * Compact JWE with ECDH-ES key agreement on P-256 and A256GCM content encryption (RFC 7516/7518), the format
 * the browser SDK produces with WebCrypto. Direct key agreement: the encrypted-key part is empty, the content
 * key is Concat-KDF(SHA-256) of the ECDH shared secret, and the protected header (carrying the ephemeral public
 * key) is the additional authenticated data, so no header field can be altered without failing decryption.
 */
import {
  createCipheriv,
  createDecipheriv,
  createECDH,
  createHash,
  createPrivateKey,
  createPublicKey,
  diffieHellman,
  generateKeyPairSync,
  hkdfSync,
  randomBytes,
  type KeyObject,
} from 'node:crypto';

export interface EcPublicJwk {
  kty: 'EC';
  crv: 'P-256';
  x: string;
  y: string;
}

export interface JweHeader {
  alg: 'ECDH-ES';
  enc: 'A256GCM';
  kid: string;
  epk: EcPublicJwk;
  apu?: string;
  apv?: string;
  [extra: string]: unknown;
}

export type JweFailure = 'malformed' | 'unsupported' | 'wrong_key' | 'tampered';

/** Why a ciphertext was refused; the message never carries any part of the plaintext. */
export class JweError extends Error {
  constructor(
    readonly reason: JweFailure,
    message: string,
  ) {
    super(message);
  }
}

const b64 = (value: Buffer | string) => Buffer.from(value).toString('base64url');
const B64URL = /^[A-Za-z0-9_-]*$/;

/** RFC 7638 thumbprint: the key id the browser names in `kid`. */
export function jwkThumbprint(jwk: EcPublicJwk): string {
  return b64(
    createHash('sha256').update(`{"crv":"${jwk.crv}","kty":"${jwk.kty}","x":"${jwk.x}","y":"${jwk.y}"}`).digest(),
  );
}

export function publicJwkOf(privateKey: KeyObject): EcPublicJwk {
  const jwk = createPublicKey(privateKey).export({ format: 'jwk' });
  if (jwk.kty !== 'EC' || jwk.crv !== 'P-256' || !jwk.x || !jwk.y)
    throw new Error('The vault key must be an EC P-256 key');
  return { kty: 'EC', crv: 'P-256', x: jwk.x, y: jwk.y };
}

// Order of the P-256 group: a derived private scalar must lie in [1, n-1].
const P256_ORDER = BigInt('0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551');

/** A P-256 private key derived deterministically from a secret seed (HKDF-SHA256, then reduced into [1, n-1]). */
export function deriveP256PrivateKey(seed: Buffer, info: string): KeyObject {
  const okm = Buffer.from(hkdfSync('sha256', seed, Buffer.alloc(0), info, 48));
  const scalar = (BigInt(`0x${okm.toString('hex')}`) % (P256_ORDER - 1n)) + 1n;
  const d = Buffer.from(scalar.toString(16).padStart(64, '0'), 'hex');
  const ecdh = createECDH('prime256v1');
  ecdh.setPrivateKey(d);
  const point = ecdh.getPublicKey();
  return createPrivateKey({
    format: 'jwk',
    key: { kty: 'EC', crv: 'P-256', d: b64(d), x: b64(point.subarray(1, 33)), y: b64(point.subarray(33, 65)) },
  });
}

/** NIST SP 800-56A Concat KDF as JWA §4.6 uses it, for a 256-bit key (one SHA-256 round). */
function concatKdf(sharedSecret: Buffer, enc: string, apu: Buffer, apv: Buffer): Buffer {
  const lengthPrefixed = (data: Buffer) => Buffer.concat([uint32(data.length), data]);
  const otherInfo = Buffer.concat([
    lengthPrefixed(Buffer.from(enc, 'ascii')),
    lengthPrefixed(apu),
    lengthPrefixed(apv),
    uint32(256),
  ]);
  return createHash('sha256')
    .update(Buffer.concat([uint32(1), sharedSecret, otherInfo]))
    .digest();
}

function uint32(value: number): Buffer {
  const out = Buffer.alloc(4);
  out.writeUInt32BE(value);
  return out;
}

function parseHeader(encoded: string): JweHeader {
  let header: unknown;
  try {
    header = JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8'));
  } catch {
    throw new JweError('malformed', 'The JWE protected header is not valid JSON');
  }
  if (!header || typeof header !== 'object' || Array.isArray(header))
    throw new JweError('malformed', 'The JWE protected header is not an object');
  const { alg, enc, kid, epk } = header as Record<string, unknown>;
  if (alg !== 'ECDH-ES' || enc !== 'A256GCM')
    throw new JweError('unsupported', 'Only alg ECDH-ES with enc A256GCM is accepted');
  if (typeof kid !== 'string') throw new JweError('malformed', 'The JWE protected header has no kid');
  const key = epk as Record<string, unknown> | undefined;
  if (!key || key.kty !== 'EC' || key.crv !== 'P-256' || typeof key.x !== 'string' || typeof key.y !== 'string') {
    throw new JweError('malformed', 'The JWE protected header has no P-256 epk');
  }
  return header as JweHeader;
}

/**
 * Opens a compact JWE sealed to `privateKey` (whose thumbprint is `kid`). Returns the plaintext and the
 * (authenticated) protected header so callers can check their own binding fields.
 */
export function decryptCompactJwe(
  privateKey: KeyObject,
  kid: string,
  compact: string,
): { plaintext: Buffer; header: JweHeader } {
  const parts = compact.split('.');
  if (parts.length !== 5 || !parts.every((part) => B64URL.test(part)))
    throw new JweError('malformed', 'Not a compact JWE (five base64url parts)');
  const [protectedB64, encryptedKey, ivB64, ciphertextB64, tagB64] = parts;
  if (encryptedKey !== '') throw new JweError('unsupported', 'ECDH-ES (direct agreement) carries no encrypted key');
  const header = parseHeader(protectedB64);
  if (header.kid !== kid)
    throw new JweError(
      'wrong_key',
      'The card data was encrypted for another key; fetch a fresh session and encrypt again',
    );
  const iv = Buffer.from(ivB64, 'base64url');
  const tag = Buffer.from(tagB64, 'base64url');
  if (iv.length !== 12 || tag.length !== 16)
    throw new JweError('malformed', 'A256GCM needs a 96-bit iv and a 128-bit tag');
  let ephemeral: KeyObject;
  try {
    ephemeral = createPublicKey({ format: 'jwk', key: { kty: 'EC', crv: 'P-256', x: header.epk.x, y: header.epk.y } });
  } catch {
    throw new JweError('malformed', 'The epk is not a point on P-256');
  }
  try {
    const shared = diffieHellman({ privateKey, publicKey: ephemeral });
    const cek = concatKdf(
      shared,
      'A256GCM',
      Buffer.from(header.apu ?? '', 'base64url'),
      Buffer.from(header.apv ?? '', 'base64url'),
    );
    const decipher = createDecipheriv('aes-256-gcm', cek, iv);
    decipher.setAAD(Buffer.from(protectedB64, 'ascii'));
    decipher.setAuthTag(tag);
    const plaintext = Buffer.concat([decipher.update(Buffer.from(ciphertextB64, 'base64url')), decipher.final()]);
    return { plaintext, header };
  } catch {
    throw new JweError('tampered', 'The card data could not be decrypted (altered or corrupted ciphertext)');
  }
}

/** Seals `plaintext` to a recipient's public JWK; what the browser SDK does, for Node clients and tests. */
export function encryptCompactJwe(
  recipient: EcPublicJwk,
  plaintext: string | Buffer,
  extraHeader: Record<string, unknown> = {},
): string {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const epk = publicJwkOf(privateKey);
  const header = { alg: 'ECDH-ES', enc: 'A256GCM', kid: jwkThumbprint(recipient), epk, ...extraHeader };
  const protectedB64 = b64(JSON.stringify(header));
  const shared = diffieHellman({ privateKey, publicKey: createPublicKey({ format: 'jwk', key: { ...recipient } }) });
  const cek = concatKdf(shared, 'A256GCM', Buffer.alloc(0), Buffer.alloc(0));
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', cek, iv);
  cipher.setAAD(Buffer.from(protectedB64, 'ascii'));
  const ciphertext = Buffer.concat([cipher.update(Buffer.from(plaintext)), cipher.final()]);
  return [protectedB64, '', b64(iv), b64(ciphertext), b64(cipher.getAuthTag())].join('.');
}
