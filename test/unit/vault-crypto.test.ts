/** The vault's pure parts: compact JWE (ECDH-ES + A256GCM), the derived vault key, fingerprints and card rules. */
import { expect } from 'chai';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import {
  decryptCompactJwe,
  encryptCompactJwe,
  JweError,
  jwkThumbprint,
  publicJwkOf,
  type JweFailure,
} from '../../domain/platform/jwe';
import { cardFingerprint, loadVaultKeys } from '../../domain/platform/vault-keys';
import {
  binOf,
  cardExpiresAt,
  cvcLength,
  detectBrand,
  isCardExpired,
  luhnValid,
  validLength,
} from '../../api/modules/tokens/card.rules';

const master = randomBytes(32);
const vault = loadVaultKeys({}, master);

function failure(fn: () => unknown): JweFailure {
  try {
    fn();
  } catch (error) {
    expect(error).to.be.instanceOf(JweError);
    return (error as JweError).reason;
  }
  throw new Error('expected a JweError');
}

describe('Vault JWE (ECDH-ES + A256GCM)', () => {
  it('round-trips a value sealed to the vault key and returns the authenticated header', () => {
    const compact = encryptCompactJwe(vault.publicJwk, '4242424242424242', { sid: 'bs_1', fld: 'number' });
    expect(compact.split('.')).to.have.length(5);
    expect(compact.split('.')[1]).to.equal('');
    const { plaintext, header } = decryptCompactJwe(vault.privateKey, vault.kid, compact);
    expect(plaintext.toString()).to.equal('4242424242424242');
    expect(header).to.include({ alg: 'ECDH-ES', enc: 'A256GCM', kid: vault.kid, sid: 'bs_1', fld: 'number' });
  });

  it('refuses a ciphertext whose bytes were altered (tampered)', () => {
    const parts = encryptCompactJwe(vault.publicJwk, 'secret').split('.');
    const ciphertext = Buffer.from(parts[3], 'base64url');
    ciphertext[0] ^= 1;
    parts[3] = ciphertext.toString('base64url');
    expect(failure(() => decryptCompactJwe(vault.privateKey, vault.kid, parts.join('.')))).to.equal('tampered');
  });

  it('refuses an edited protected header, because the header is the additional authenticated data', () => {
    const parts = encryptCompactJwe(vault.publicJwk, 'secret', { sid: 'bs_1' }).split('.');
    const header = JSON.parse(Buffer.from(parts[0], 'base64url').toString());
    parts[0] = Buffer.from(JSON.stringify({ ...header, sid: 'bs_2' })).toString('base64url');
    expect(failure(() => decryptCompactJwe(vault.privateKey, vault.kid, parts.join('.')))).to.equal('tampered');
  });

  it('reports a ciphertext sealed to another key as wrong_key', () => {
    const other = loadVaultKeys({}, randomBytes(32));
    const compact = encryptCompactJwe(other.publicJwk, 'secret');
    expect(failure(() => decryptCompactJwe(vault.privateKey, vault.kid, compact))).to.equal('wrong_key');
  });

  it('reports garbage, other algorithms and off-curve points as malformed or unsupported', () => {
    expect(failure(() => decryptCompactJwe(vault.privateKey, vault.kid, 'not-a-jwe'))).to.equal('malformed');
    const rsa = Buffer.from(JSON.stringify({ alg: 'RSA-OAEP-256', enc: 'A256GCM', kid: vault.kid })).toString(
      'base64url',
    );
    expect(
      failure(() =>
        decryptCompactJwe(vault.privateKey, vault.kid, `${rsa}.x.aaaaaaaaaaaaaaaa.aa.aaaaaaaaaaaaaaaaaaaaaa`),
      ),
    ).to.equal('unsupported');
    const parts = encryptCompactJwe(vault.publicJwk, 'secret').split('.');
    const header = JSON.parse(Buffer.from(parts[0], 'base64url').toString());
    parts[0] = Buffer.from(JSON.stringify({ ...header, epk: { ...header.epk, y: header.epk.x } })).toString(
      'base64url',
    );
    expect(failure(() => decryptCompactJwe(vault.privateKey, vault.kid, parts.join('.')))).to.equal('malformed');
  });
});

describe('Vault keys (domain/platform/vault-keys.ts)', () => {
  it('derives the same P-256 key from the same master key, and publishes its RFC 7638 thumbprint as kid', () => {
    const again = loadVaultKeys({}, master);
    expect(again.publicJwk).to.deep.equal(vault.publicJwk);
    expect(vault.kid)
      .to.equal(jwkThumbprint(vault.publicJwk))
      .and.match(/^[A-Za-z0-9_-]{43}$/);
    expect(loadVaultKeys({}, randomBytes(32)).kid).to.not.equal(vault.kid);
  });

  it('uses VAULT_PRIVATE_KEY and CARD_FINGERPRINT_KEY when configured', () => {
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const pem = privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
    const fingerprintKey = randomBytes(32).toString('base64');
    const configured = loadVaultKeys({ VAULT_PRIVATE_KEY: pem, CARD_FINGERPRINT_KEY: fingerprintKey }, master);
    expect(configured.publicJwk).to.deep.equal(publicJwkOf(privateKey));
    const der = privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64');
    expect(loadVaultKeys({ VAULT_PRIVATE_KEY: der }, master).kid).to.equal(configured.kid);
    expect(configured.fingerprintKey.toString('base64')).to.equal(fingerprintKey);
  });

  it('refuses a non-P-256 vault key', () => {
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'secp384r1' });
    expect(() =>
      loadVaultKeys({ VAULT_PRIVATE_KEY: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString() }, master),
    ).to.throw();
  });

  it('fingerprints a PAN with a keyed HMAC: equal for the same card and key, different under another key', () => {
    const a = cardFingerprint(vault, '4242424242424242');
    expect(a).to.equal(cardFingerprint(vault, '4242424242424242'));
    expect(a).to.not.equal(cardFingerprint(vault, '5555555555554444'));
    expect(a).to.not.equal(cardFingerprint(loadVaultKeys({}, randomBytes(32)), '4242424242424242'));
    expect(a).to.not.include('4242');
  });
});

describe('Card rules (api/modules/tokens/card-rules.ts)', () => {
  it('detects the brand from the BIN, Elo and Hipercard before Visa and Discover', () => {
    expect(detectBrand('4242424242424242')).to.equal('visa');
    expect(detectBrand('5555555555554444')).to.equal('mastercard');
    expect(detectBrand('2221000000000009')).to.equal('mastercard');
    expect(detectBrand('378282246310005')).to.equal('amex');
    expect(detectBrand('6362970000457013')).to.equal('elo');
    expect(detectBrand('4011780000000000')).to.equal('elo');
    expect(detectBrand('6062826786276634')).to.equal('hipercard');
    expect(detectBrand('6011111111111117')).to.equal('discover');
    expect(detectBrand('30569309025904')).to.equal('diners');
    expect(detectBrand('3530111333300000')).to.equal('jcb');
    expect(detectBrand('9999999999999995')).to.equal(null);
  });

  it('checks Luhn and the brand lengths', () => {
    expect(luhnValid('4242424242424242')).to.equal(true);
    expect(luhnValid('4242424242424241')).to.equal(false);
    expect(luhnValid('42424242')).to.equal(false);
    expect(validLength('amex', '378282246310005')).to.equal(true);
    expect(validLength('visa', '42424242424242')).to.equal(false);
  });

  it('wants a 4-digit CVC for amex and 3 otherwise, keeps an 8-digit BIN for 16-digit PANs and 6 below', () => {
    expect(cvcLength('amex')).to.equal(4);
    expect(cvcLength('visa')).to.equal(3);
    expect(binOf('4242424242424242')).to.equal('42424242');
    expect(binOf('378282246310005')).to.equal('378282');
  });

  it('treats a card as valid through the last day of its expiry month (UTC)', () => {
    expect(cardExpiresAt(12, 2030).toISOString()).to.equal('2031-01-01T00:00:00.000Z');
    expect(isCardExpired(3, 2030, new Date('2030-03-31T23:59:59Z'))).to.equal(false);
    expect(isCardExpired(3, 2030, new Date('2030-04-01T00:00:00Z'))).to.equal(true);
  });
});
