/** Key rotation primitives: a keyring of current + previous master keys, and re-wrapping without re-encrypting. */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { expect } from 'chai';
import {
  decryptSecret,
  encryptSecret,
  keyIdOf,
  keyring,
  masterKeyId,
  rewrapSecret,
} from '../../domain/platform/crypto';
import { ConfigError, loadConfig, loadKeyring } from '../../domain/platform/config';

const oldKey = randomBytes(32);
const newKey = randomBytes(32);
const SECRET = '{"secret_key":"sk_test_keyring"}';

describe('api/lib/crypto keyring', () => {
  it('seals under the current key and opens values sealed under the current or any previous key', () => {
    const ring = keyring(newKey, [oldKey]);
    const sealed = encryptSecret(ring, SECRET);
    expect(keyIdOf(sealed)).to.equal(masterKeyId(newKey));
    expect(decryptSecret(ring, sealed)).to.equal(SECRET);
    expect(decryptSecret(ring, encryptSecret(oldKey, SECRET))).to.equal(SECRET);
  });

  it('refuses a value sealed under a key that is not in the ring, naming only the key id', () => {
    const stranger = randomBytes(32);
    const sealed = encryptSecret(stranger, SECRET);
    expect(() => decryptSecret(keyring(newKey, [oldKey]), sealed)).to.throw(masterKeyId(stranger));
    try {
      decryptSecret(keyring(newKey, [oldKey]), sealed);
    } catch (error) {
      expect((error as Error).message).to.not.include('sk_test');
    }
  });

  it('a bare master key still works everywhere a keyring does (one-key ring)', () => {
    expect(decryptSecret(newKey, encryptSecret(keyring(newKey), SECRET))).to.equal(SECRET);
  });
});

describe('api/lib/crypto rewrapSecret', () => {
  it('re-wraps the data key under the current key, leaving iv, tag and ciphertext byte-identical', () => {
    const stored = encryptSecret(oldKey, SECRET);
    const rewrapped = rewrapSecret(keyring(newKey, [oldKey]), stored);
    const [before, after] = [stored.split('.'), rewrapped.split('.')];
    expect(after[0]).to.equal('v1');
    expect(after[1]).to.equal(masterKeyId(newKey));
    expect(after[2]).to.not.equal(before[2]);
    expect(after.slice(3)).to.deep.equal(before.slice(3));
    for (const index of [3, 4, 5])
      expect(Buffer.from(after[index], 'base64url').equals(Buffer.from(before[index], 'base64url'))).to.equal(true);
  });

  it('the re-wrapped value opens under the new key alone, and no longer under the old key alone', () => {
    const rewrapped = rewrapSecret(keyring(newKey, [oldKey]), encryptSecret(oldKey, SECRET));
    expect(decryptSecret(newKey, rewrapped)).to.equal(SECRET);
    expect(() => decryptSecret(oldKey, rewrapped)).to.throw();
  });

  it('returns a value already under the current key unchanged (idempotent)', () => {
    const stored = encryptSecret(newKey, SECRET);
    expect(rewrapSecret(keyring(newKey, [oldKey]), stored)).to.equal(stored);
  });

  it('throws for a value whose key is not in the ring, or a malformed value', () => {
    expect(() => rewrapSecret(keyring(newKey), encryptSecret(oldKey, SECRET))).to.throw(/not configured/);
    expect(() => rewrapSecret(keyring(newKey, [oldKey]), 'v1.abc')).to.throw(/format/);
  });
});

describe('api/config encryption keys, vault keys and PUBLIC_BASE_URL', () => {
  const base = {
    APP_ENV: 'local',
    DATABASE_URL: 'postgres://x',
    TEMPORAL_ADDRESS: 'localhost:7233',
    ENCRYPTION_KEY: newKey.toString('base64'),
  };

  it('reads ENCRYPTION_KEYS_PREVIOUS as comma-separated base64 keys; encryptionKey stays the current key', () => {
    const other = randomBytes(32);
    const config = loadConfig({
      ...base,
      ENCRYPTION_KEYS_PREVIOUS: ` ${oldKey.toString('base64')}, ${other.toString('base64')},`,
    });
    expect(config.encryptionKey.equals(newKey)).to.equal(true);
    expect(config.encryptionKeys.current.equals(newKey)).to.equal(true);
    expect(config.encryptionKeys.previous.map((key) => key.toString('hex'))).to.deep.equal([
      oldKey.toString('hex'),
      other.toString('hex'),
    ]);
    expect(loadKeyring(base).previous).to.deep.equal([]);
  });

  it('refuses a previous key that is not 32 base64 bytes', () => {
    expect(() => loadKeyring({ ...base, ENCRYPTION_KEYS_PREVIOUS: randomBytes(16).toString('base64') })).to.throw(
      ConfigError,
    );
  });

  it('PUBLIC_BASE_URL defaults to http://localhost:3000, drops a trailing slash and must be http(s)', () => {
    expect(loadConfig(base).publicBaseUrl).to.equal('http://localhost:3000');
    expect(loadConfig({ ...base, PUBLIC_BASE_URL: 'https://pay.example.com/edge/' }).publicBaseUrl).to.equal(
      'https://pay.example.com/edge',
    );
    expect(() => loadConfig({ ...base, PUBLIC_BASE_URL: 'ftp://example.com' })).to.throw(ConfigError);
    expect(() => loadConfig({ ...base, PUBLIC_BASE_URL: 'not a url' })).to.throw(ConfigError);
  });

  it('production refuses to start without VAULT_PRIVATE_KEY and CARD_FINGERPRINT_KEY (derived ones would change at key rotation)', () => {
    const vaultKey = generateKeyPairSync('ec', { namedCurve: 'P-256' })
      .privateKey.export({ type: 'pkcs8', format: 'der' })
      .toString('base64');
    const fingerprintKey = randomBytes(32).toString('base64');
    // Production's other required settings (Dashboard signing key, SMTP) are present: only the vault keys are missing.
    const production = {
      ...base,
      APP_ENV: 'production',
      PUBLIC_BASE_URL: 'https://pay.example.com',
      DASHBOARD_JWT_KEY: randomBytes(32).toString('base64'),
      SMTP_URL: 'smtp://mail.example.com:587',
    };
    expect(() => loadConfig(production)).to.throw(ConfigError, /VAULT_PRIVATE_KEY and CARD_FINGERPRINT_KEY/);
    expect(() => loadConfig({ ...production, VAULT_PRIVATE_KEY: vaultKey })).to.throw(ConfigError);
    expect(() => loadConfig({ ...production, CARD_FINGERPRINT_KEY: fingerprintKey })).to.throw(ConfigError);
    expect(
      loadConfig({ ...production, VAULT_PRIVATE_KEY: vaultKey, CARD_FINGERPRINT_KEY: fingerprintKey }).env,
    ).to.equal('production');
    // Outside production the derived keys remain the zero-setup default.
    expect(loadConfig(base).vault.publicJwk.crv).to.equal('P-256');
  });

  it('production refuses to start without DASHBOARD_JWT_KEY or SMTP_URL (a derived signing key would change at rotation; the local catcher delivers nothing)', () => {
    const production = {
      ...base,
      APP_ENV: 'production',
      PUBLIC_BASE_URL: 'https://pay.example.com',
      VAULT_PRIVATE_KEY: generateKeyPairSync('ec', { namedCurve: 'P-256' })
        .privateKey.export({ type: 'pkcs8', format: 'der' })
        .toString('base64'),
      CARD_FINGERPRINT_KEY: randomBytes(32).toString('base64'),
    };
    const jwtKey = randomBytes(32).toString('base64');
    const smtp = 'smtp://mail.example.com:587';
    expect(() => loadConfig({ ...production, SMTP_URL: smtp })).to.throw(ConfigError, /DASHBOARD_JWT_KEY and SMTP_URL/);
    expect(() => loadConfig({ ...production, DASHBOARD_JWT_KEY: jwtKey })).to.throw(ConfigError, /SMTP_URL/);
    expect(loadConfig({ ...production, DASHBOARD_JWT_KEY: jwtKey, SMTP_URL: smtp }).env).to.equal('production');
  });

  it('production refuses plain-http PUBLIC_BASE_URL or DASHBOARD_URL (reset links and webhook_url tokens travel in them)', () => {
    const production = {
      ...base,
      APP_ENV: 'production',
      VAULT_PRIVATE_KEY: generateKeyPairSync('ec', { namedCurve: 'P-256' })
        .privateKey.export({ type: 'pkcs8', format: 'der' })
        .toString('base64'),
      CARD_FINGERPRINT_KEY: randomBytes(32).toString('base64'),
      DASHBOARD_JWT_KEY: randomBytes(32).toString('base64'),
      SMTP_URL: 'smtp://mail.example.com:587',
    };
    expect(() => loadConfig({ ...production, PUBLIC_BASE_URL: undefined })).to.throw(ConfigError, /PUBLIC_BASE_URL/);
    expect(() => loadConfig({ ...production, PUBLIC_BASE_URL: 'http://pay.example.com' })).to.throw(ConfigError);
    const https = { ...production, PUBLIC_BASE_URL: 'https://pay.example.com' };
    expect(() => loadConfig({ ...https, DASHBOARD_URL: 'http://pay.example.com/dashboard' })).to.throw(
      ConfigError,
      /DASHBOARD_URL/,
    );
    expect(loadConfig(https).dashboard.appUrl).to.equal('https://pay.example.com/dashboard');
  });
});
