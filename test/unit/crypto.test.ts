import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import {
  constantTimeEqual,
  decodeMasterKey,
  decryptSecret,
  encryptSecret,
  hashSecret,
} from '../../domain/platform/crypto';

const masterKey = randomBytes(32);
const SECRET = '12345678909';

/** Flips one byte in the middle of part `index` of the stored value (decoded, so it is a real change). */
function tamper(stored: string, index: number): string {
  const parts = stored.split('.');
  const bytes = Buffer.from(parts[index], 'base64url');
  bytes[Math.floor(bytes.length / 2)] ^= 0x01;
  parts[index] = bytes.toString('base64url');
  return parts.join('.');
}

describe('api/lib/crypto envelope encryption', () => {
  it('decrypts what it encrypted (ASCII, Unicode and long values)', () => {
    for (const plaintext of [SECRET, 'São Paulo — 日本 🔐', 'x'.repeat(10_000)]) {
      expect(decryptSecret(masterKey, encryptSecret(masterKey, plaintext))).to.equal(plaintext);
    }
  });

  it('round-trips the empty string', () => {
    expect(decryptSecret(masterKey, encryptSecret(masterKey, ''))).to.equal('');
  });

  it('produces a different ciphertext every time for the same plaintext', () => {
    const values = new Set(Array.from({ length: 50 }, () => encryptSecret(masterKey, SECRET)));
    expect(values.size).to.equal(50);
  });

  it('stores v1.<keyId>.<wrappedKey>.<iv>.<tag>.<ciphertext> in base64url, with no trace of the plaintext', () => {
    const plaintext = 'document-number-4111111111111111';
    const stored = encryptSecret(masterKey, plaintext);
    const parts = stored.split('.');
    expect(parts).to.have.length(6);
    expect(parts[0]).to.equal('v1');
    for (const part of parts.slice(1)) expect(part).to.match(/^[A-Za-z0-9_-]+$/);
    expect(stored).to.not.include(plaintext);
    expect(stored).to.not.include('4111111111111111');
    for (const encoding of ['base64', 'base64url', 'hex'] as const) {
      expect(stored).to.not.include(Buffer.from(plaintext).toString(encoding).slice(0, 16));
    }
  });

  it('detects tampering with the wrapped data key, the iv, the tag or the ciphertext', () => {
    const stored = encryptSecret(masterKey, SECRET);
    for (const index of [2, 3, 4, 5]) {
      expect(() => decryptSecret(masterKey, tamper(stored, index)), `part ${index}`).to.throw();
    }
  });

  it('rejects a truncated value, another version or another key id', () => {
    const stored = encryptSecret(masterKey, SECRET);
    const parts = stored.split('.');
    expect(() => decryptSecret(masterKey, parts.slice(0, 5).join('.'))).to.throw();
    expect(() => decryptSecret(masterKey, ['v2', ...parts.slice(1)].join('.'))).to.throw();
    expect(() => decryptSecret(masterKey, [parts[0], 'AAAAAAAA', ...parts.slice(2)].join('.'))).to.throw();
    expect(() => decryptSecret(masterKey, stored.slice(0, -4))).to.throw();
  });

  it('rejects decryption under a different master key', () => {
    const stored = encryptSecret(masterKey, SECRET);
    expect(() => decryptSecret(randomBytes(32), stored)).to.throw();
  });

  it('decodeMasterKey accepts exactly 32 base64 bytes', () => {
    expect(decodeMasterKey(masterKey.toString('base64')).equals(masterKey)).to.equal(true);
    expect(() => decodeMasterKey(randomBytes(16).toString('base64'))).to.throw(/32 bytes/);
    expect(() => decodeMasterKey('')).to.throw(/32 bytes/);
  });
});

describe('api/lib/crypto hashing', () => {
  it('hashSecret is a deterministic SHA-256 hex digest that differs per secret', () => {
    expect(hashSecret('sk_live_a'))
      .to.match(/^[0-9a-f]{64}$/)
      .and.equal(hashSecret('sk_live_a'));
    expect(hashSecret('sk_live_a')).to.not.equal(hashSecret('sk_live_b'));
  });

  it('constantTimeEqual compares by value, including different lengths', () => {
    expect(constantTimeEqual('abc', 'abc')).to.equal(true);
    expect(constantTimeEqual('abc', 'abd')).to.equal(false);
    expect(constantTimeEqual('abc', 'abcd')).to.equal(false);
    expect(constantTimeEqual('', '')).to.equal(true);
  });
});
