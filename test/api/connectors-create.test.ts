/** POST /api/v1/merchants/:merchant_id/connectors: Document 3 "Connector" and "Connectors (merchant-level)". */
import { expect } from 'chai';
import { api } from '../helpers/http';
import { stack } from '../helpers/stack';
import { addMerchant, createTenant, keyWithScopes, type Tenant } from '../helpers/factories';
import { expectError, expectFieldErrors, expectRecentTimestamp } from '../helpers/envelope';
import {
  ACTIVE_SLUGS,
  CONNECTOR_KEYS,
  connectorBody,
  connectorsPath,
  rows,
  validCredentials,
  validWebhookSecret,
} from '../helpers/connectors';

describe('POST /api/v1/merchants/:merchant_id/connectors', () => {
  let tenant: Tenant;
  beforeEach(async () => {
    tenant = await createTenant();
  });
  const post = (body: Record<string, unknown>, key = tenant.merchant_secret_key, merchantId = tenant.merchant_id) =>
    api.post(connectorsPath(merchantId), { key, body });
  const count = async () =>
    Number(
      (await rows('select count(*) as n from merchant_connectors where merchant_id = ?', [tenant.merchant_id]))[0].n,
    );

  it('returns 201 with the bare connector, every documented field present and no credentials', async () => {
    const res = await post(connectorBody('provider_a', { name: 'Stripe-like US', country_code: 'US' }));
    expect(res.status, res.text).to.equal(201);
    expect(Object.keys(res.body).sort()).to.deep.equal([...CONNECTOR_KEYS].sort());
    expect(res.body.id).to.match(/^conn_[0-9A-Za-z]+$/);
    expect(res.body).to.include({
      merchant_id: tenant.merchant_id,
      provider_slug: 'provider_a',
      name: 'Stripe-like US',
      country_code: 'US',
      auth_method: 'api_key',
      is_test_mode: true,
      is_active: true,
      has_webhook_secret: false,
      config: null,
    });
    expectRecentTimestamp(res.body.created_at);
    expectRecentTimestamp(res.body.updated_at);
  });

  it('accepts every active provider with its own credential shape', async () => {
    for (const slug of ACTIVE_SLUGS) {
      const res = await post(connectorBody(slug));
      expect(res.status, `${slug}: ${res.text}`).to.equal(201);
      expect(res.body.provider_slug).to.equal(slug);
    }
  });

  it('builds webhook_url from PUBLIC_BASE_URL, the connector id and a per-connector random token', async () => {
    const a = (await post(connectorBody())).body;
    const b = (await post(connectorBody())).body;
    const pattern = new RegExp(
      `^${stack().config.publicBaseUrl}/api/v1/webhooks/inbound/${a.id}\\?token=[A-Za-z0-9_-]{43}$`,
    );
    expect(a.webhook_url).to.match(pattern);
    expect(new URL(a.webhook_url).searchParams.get('token')).to.not.equal(
      new URL(b.webhook_url).searchParams.get('token'),
    );
  });

  it('defaults is_active to true and honours is_active false', async () => {
    const res = await post(connectorBody('provider_d', { is_active: false, is_test_mode: false }));
    expect(res.body).to.include({ is_active: false, is_test_mode: false, country_code: null });
  });

  it('accepts provider_c with oauth2 client credentials', async () => {
    const res = await post(connectorBody('provider_c', { auth_method: 'oauth2' }));
    expect(res.status, res.text).to.equal(201);
    expect(res.body.auth_method).to.equal('oauth2');
  });

  it('rejects the inactive provider_e and unknown slugs (400)', async () => {
    const res = await post(connectorBody('provider_e', { auth_method: 'oauth2' }));
    const details = expectFieldErrors(res, ['provider_slug']);
    expect(details.provider_slug[0]).to.include('provider_a');
    expectFieldErrors(await post(connectorBody('provider_z')), ['provider_slug']);
    expect(await count()).to.equal(0);
  });

  it('rejects an auth_method the provider does not support (400)', async () => {
    expectFieldErrors(
      await post(connectorBody('provider_a', { auth_method: 'oauth2', credentials: validCredentials('provider_a') })),
      ['auth_method'],
    );
    expectFieldErrors(await post(connectorBody('provider_a', { auth_method: 'password' })), ['auth_method']);
  });

  it('rejects provider_c credentials whose shape belongs to the other auth method (400)', async () => {
    const oauthShape = await post(
      connectorBody('provider_c', { auth_method: 'api_key', credentials: validCredentials('provider_c', 'oauth2') }),
    );
    expect(
      Object.keys(
        expectFieldErrors(oauthShape, [
          'credentials.access_token',
          'credentials.client_id',
          'credentials.client_secret',
        ]),
      ),
    ).to.have.length(3);
    const tokenShape = await post(
      connectorBody('provider_c', { auth_method: 'oauth2', credentials: validCredentials('provider_c', 'api_key') }),
    );
    expectFieldErrors(tokenShape, ['credentials.access_token', 'credentials.client_id', 'credentials.client_secret']);
  });

  const badCredentials: Array<[string, string, Record<string, unknown>, string[]]> = [
    ['provider_a', 'a missing secret_key', {}, ['credentials.secret_key']],
    [
      'provider_a',
      'a secret_key of the wrong pattern',
      { secret_key: 'pk_test_SneakySecret123' },
      ['credentials.secret_key'],
    ],
    [
      'provider_a',
      'an extra field',
      { secret_key: 'sk_test_SneakySecret123', extra_field: 'SneakyExtra123' },
      ['credentials.extra_field'],
    ],
    [
      'provider_b',
      'a missing merchant_account',
      { username: 'ws_user', password: 'SneakyPass123' },
      ['credentials.merchant_account'],
    ],
    [
      'provider_b',
      'a too-short password',
      { username: 'ws_user', password: 'Sneak', merchant_account: 'Acme' },
      ['credentials.password'],
    ],
    [
      'provider_c',
      'an access_token of the wrong pattern',
      { access_token: 'TOKEN-SneakySecret123' },
      ['credentials.access_token'],
    ],
    [
      'provider_d',
      'an extra field',
      { api_login_id: 'login1', transaction_key: 'SneakyTxKey123', api_key: 'SneakyExtra123' },
      ['credentials.api_key'],
    ],
    [
      'provider_d',
      'a non-string api_login_id',
      { api_login_id: 42, transaction_key: 'SneakyTxKey123' },
      ['credentials.api_login_id'],
    ],
    [
      'checkout',
      'a processing_channel_id of the wrong pattern',
      { secret_key: 'sk_sbox_SneakySecret123', processing_channel_id: 'channel-SneakyPc' },
      ['credentials.processing_channel_id'],
    ],
    ['checkout', 'a missing secret_key', { processing_channel_id: 'pc_abc' }, ['credentials.secret_key']],
  ];
  for (const [slug, what, credentials, fields] of badCredentials) {
    it(`rejects ${slug} credentials with ${what}, naming ${fields.join(', ')} without echoing values (400)`, async () => {
      const res = await post(connectorBody(slug, { credentials }));
      expectFieldErrors(res, fields);
      expect(res.text).to.not.match(/Sneak/);
      expect(await count()).to.equal(0);
    });
  }

  it('rejects credentials that are not an object (400)', async () => {
    const res = await post(connectorBody('provider_a', { credentials: 'sk_test_SneakySecret' }));
    expectFieldErrors(res, ['credentials']);
    expect(res.text).to.not.include('Sneaky');
    expectFieldErrors(await post({ ...connectorBody('provider_a'), credentials: undefined }), ['credentials']);
  });

  it('rejects credentials over 4096 bytes serialized without echoing them, and creates nothing (400)', async () => {
    const res = await post(
      connectorBody('provider_a', { credentials: { secret_key: `sk_test_Sneaky${'x'.repeat(4096)}` } }),
    );
    expect(expectFieldErrors(res, ['credentials']).credentials).to.deep.equal([
      'must be at most 4096 bytes when serialized',
    ]);
    expect(res.text).to.not.include('Sneaky');
    expect(await count()).to.equal(0);
  });

  it('requires provider_slug, name, is_test_mode, credentials and auth_method (400)', async () => {
    expectFieldErrors(await post({}), ['provider_slug', 'name', 'is_test_mode', 'credentials', 'auth_method']);
  });

  it('rejects a name longer than 100 characters, an empty one and a non-boolean is_test_mode (400)', async () => {
    expectFieldErrors(await post(connectorBody('provider_a', { name: 'x'.repeat(101) })), ['name']);
    expectFieldErrors(await post(connectorBody('provider_a', { name: '   ' })), ['name']);
    expectFieldErrors(await post(connectorBody('provider_a', { is_test_mode: 'true' })), ['is_test_mode']);
    expect((await post(connectorBody('provider_a', { name: 'x'.repeat(100) }))).status).to.equal(201);
  });

  it('rejects unknown fields (400)', async () => {
    expectFieldErrors(await post(connectorBody('provider_a', { api_key: 'x' })), ['api_key']);
  });

  it("validates country_code as ISO alpha-2 and within the provider's countries (400)", async () => {
    expectFieldErrors(await post(connectorBody('provider_a', { country_code: 'USA' })), ['country_code']);
    expectFieldErrors(await post(connectorBody('provider_b', { country_code: 'US' })), ['country_code']);
    expect((await post(connectorBody('provider_b', { country_code: 'BR' }))).body.country_code).to.equal('BR');
    expect((await post(connectorBody('provider_b', { country_code: null }))).body.country_code).to.equal(null);
  });

  it("accepts a webhook_secret in each provider's format and reports has_webhook_secret", async () => {
    for (const slug of ACTIVE_SLUGS) {
      const res = await post(connectorBody(slug, { webhook_secret: validWebhookSecret(slug) }));
      expect(res.status, `${slug}: ${res.text}`).to.equal(201);
      expect(res.body.has_webhook_secret).to.equal(true);
    }
  });

  const badSecrets: Array<[string, string]> = [
    ['provider_a', 'SneakyHookSecretWithoutPrefix'],
    ['provider_a', `whsec_${Buffer.from('SneakyShortKey').toString('base64')}`],
    ['provider_a', 'whsec_Sneaky!!not*base64*at*all*here*'],
    ['provider_b', 'SneakyNotJson'],
    ['provider_b', JSON.stringify({ username: 'SneakyUser' })],
    ['provider_b', JSON.stringify({ username: 'SneakyUser', password: 'SneakyPass', extra: 1 })],
    ['provider_b', JSON.stringify(['SneakyUser', 'SneakyPass'])],
    ['provider_b', JSON.stringify({ username: 'SneakyUser', password: 'SneakyPass', hmac_key: 'Sneaky-not-hex' })],
    ['provider_c', 'Sneaky-short'],
    ['provider_d', 'Sneaky'.padEnd(128, '0')],
    ['checkout', 'Sneaky-short'],
  ];
  for (const [slug, secret] of badSecrets) {
    it(`rejects a ${slug} webhook_secret in the wrong format without echoing it (400): ${secret.slice(0, 24)}…`, async () => {
      const res = await post(connectorBody(slug, { webhook_secret: secret }));
      expectFieldErrors(res, ['webhook_secret']);
      expect(res.text).to.not.match(/Sneaky/);
    });
  }

  it('accepts a provider_b webhook_secret with an hmac_key (hex) next to username and password', async () => {
    const secret = JSON.stringify({
      username: 'hooks',
      password: 'hook-password',
      hmac_key: '44782DEF547AAA06C910C43932B1EB0C71FC68D9D0C057550C48EC2ACF6BA056',
    });
    const res = await post(connectorBody('provider_b', { webhook_secret: secret }));
    expect(res.status, res.text).to.equal(201);
    expect(res.body.has_webhook_secret).to.equal(true);
  });

  it('stores config card_brands the provider supports, and rejects others (400)', async () => {
    const res = await post(
      connectorBody('provider_b', { config: { card_brands: ['visa', 'elo'], installments_enabled: true } }),
    );
    expect(res.body.config).to.deep.equal({ card_brands: ['visa', 'elo'], installments_enabled: true });
    const details = expectFieldErrors(
      await post(connectorBody('provider_d', { config: { card_brands: ['visa', 'elo'] } })),
      ['config.card_brands'],
    );
    expect(details['config.card_brands'][0]).to.include('elo');
    expectFieldErrors(await post(connectorBody('provider_d', { config: { card_brands: ['visa', 'visa'] } })), [
      'config.card_brands',
    ]);
    expectFieldErrors(await post(connectorBody('provider_d', { config: { card_brands: ['visa'], surcharge: 1 } })), [
      'config.surcharge',
    ]);
  });

  it('rejects installments_enabled true for a provider without installments (400)', async () => {
    expectFieldErrors(await post(connectorBody('provider_a', { config: { installments_enabled: true } })), [
      'config.installments_enabled',
    ]);
  });

  it('stores config null when none is given, or when card_brands is empty and nothing else is set', async () => {
    expect((await post(connectorBody('provider_a', { config: { card_brands: [] } }))).body.config).to.equal(null);
    expect((await post(connectorBody('provider_a', { config: null }))).body.config).to.equal(null);
  });

  it("accepts an organization key with the path merchant, and 403s another organization's merchant", async () => {
    const ok = await post(connectorBody(), tenant.organization_secret_key);
    expect(ok.status, ok.text).to.equal(201);
    expect(ok.body.merchant_id).to.equal(tenant.merchant_id);
    const other = await createTenant();
    expectError(await post(connectorBody(), other.organization_secret_key), 403, 'authorization_error');
  });

  it("refuses a merchant key on another merchant's path (403)", async () => {
    const second = await addMerchant(tenant);
    expectError(await post(connectorBody(), tenant.merchant_secret_key, second.merchantId), 403, 'authorization_error');
  });

  it('requires connectors:write (403)', async () => {
    const key = await keyWithScopes(tenant, ['connectors:read']);
    expectError(await post(connectorBody(), key), 403, 'authorization_error');
    expect(await count()).to.equal(0);
  });

  it('replays an idempotent create without creating a second connector', async () => {
    const body = connectorBody('provider_a');
    const headers = { 'idempotency-key': 'conn-create-1' };
    const first = await api.post(connectorsPath(tenant.merchant_id), {
      key: tenant.merchant_secret_key,
      body,
      headers,
    });
    const second = await api.post(connectorsPath(tenant.merchant_id), {
      key: tenant.merchant_secret_key,
      body,
      headers,
    });
    expect(first.status).to.equal(201);
    expect(second.status).to.equal(200);
    expect(second.headers.get('idempotent-replayed')).to.equal('true');
    expect(second.body.id).to.equal(first.body.id);
    expect(await count()).to.equal(1);
  });
});
