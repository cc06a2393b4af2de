/** GET /api/v1/payment-providers(/:provider_id): Document 3 "Payment provider (catalog entry)" and "Payment providers". */
import { expect } from 'chai';
import { api } from '../helpers/http';
import { createTenant, keyWithScopes, type Tenant } from '../helpers/factories';
import { expectError } from '../helpers/envelope';
import { ACTIVE_SLUGS, connectorBody, validCredentials } from '../helpers/connectors';
import { bearer, createMerchantUser, createOrganizationUser, signIn } from '../helpers/dashboard';

const SUMMARY_KEYS = [
  'id',
  'slug',
  'display_name',
  'logo',
  'is_active',
  'supported_auth_methods',
  'credential_schemas',
  'webhook_secret_format',
];
const ENTRY_KEYS = [
  ...SUMMARY_KEYS,
  'oauth_authorization_url',
  'oauth_token_url',
  'oauth_scopes',
  'oauth_pkce_required',
  'supported_card_brands',
  'supported_payment_methods',
  'supported_currencies',
  'supported_countries',
  'supports_installments',
];

describe('GET /api/v1/payment-providers', () => {
  let tenant: Tenant;
  before(async () => {
    tenant = await createTenant();
  });

  it('lists the active providers only, bare {data, meta} with flat pagination', async () => {
    const res = await api.get('/payment-providers', { key: tenant.merchant_secret_key });
    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.have.all.keys(['data', 'meta']);
    expect(res.body.meta).to.deep.equal({
      page: 1,
      limit: 20,
      total: 5,
      total_pages: 1,
      has_next: false,
      has_prev: false,
    });
    expect(res.body.data.map((p: any) => p.slug).sort()).to.deep.equal(ACTIVE_SLUGS);
    for (const provider of res.body.data) {
      expect(Object.keys(provider).sort()).to.deep.equal([...SUMMARY_KEYS].sort());
      expect(provider.is_active).to.equal(true);
    }
  });

  it('list items carry the documented summary (provider_c offers api_key and oauth2)', async () => {
    const res = await api.get('/payment-providers', { key: tenant.merchant_secret_key });
    const c = res.body.data.find((p: any) => p.slug === 'provider_c');
    expect(c).to.deep.include({
      id: 'pp_provider_c',
      slug: 'provider_c',
      display_name: 'Provider C — Mercado Pago API',
      logo: null,
      is_active: true,
      supported_auth_methods: ['api_key', 'oauth2'],
    });
    expect(Object.keys(c.credential_schemas)).to.deep.equal(['api_key', 'oauth2']);
  });

  it('names each provider with the real API it speaks (Provider A — Stripe API…)', async () => {
    const res = await api.get('/payment-providers', { key: tenant.merchant_secret_key });
    const names = Object.fromEntries(res.body.data.map((p: any) => [p.slug, p.display_name]));
    expect(names).to.deep.equal({
      provider_a: 'Provider A — Stripe API',
      provider_b: 'Provider B — Adyen API',
      provider_c: 'Provider C — Mercado Pago API',
      provider_d: 'Provider D — Authorize.net API',
      checkout: 'Checkout — Checkout.com API',
    });
  });

  it('pages with page and limit', async () => {
    const first = await api.get('/payment-providers', { key: tenant.merchant_secret_key, query: { limit: 2 } });
    const third = await api.get('/payment-providers', {
      key: tenant.merchant_secret_key,
      query: { limit: 2, page: 3 },
    });
    expect(first.body.data).to.have.length(2);
    expect(first.body.meta).to.include({ total: 5, total_pages: 3, has_next: true, has_prev: false });
    expect(third.body.data).to.have.length(1);
    expect(third.body.meta).to.include({ page: 3, has_next: false, has_prev: true });
  });

  it('accepts an organization key naming one of its merchants', async () => {
    const res = await api.get('/payment-providers', {
      key: tenant.organization_secret_key,
      query: { merchant_id: tenant.merchant_id },
    });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.data).to.have.length(5);
  });

  it('refuses an organization key without merchant_id (403)', async () => {
    expectError(
      await api.get('/payment-providers', { key: tenant.organization_secret_key }),
      403,
      'authorization_error',
    );
  });

  it('requires connectors:read (403 otherwise) and a key (401)', async () => {
    const key = await keyWithScopes(tenant, ['customers:read']);
    expectError(await api.get('/payment-providers', { key }), 403, 'authorization_error');
    expectError(await api.get('/payment-providers'), 401, 'authentication_error');
    const reader = await keyWithScopes(tenant, ['connectors:read']);
    expect((await api.get('/payment-providers', { key: reader })).status).to.equal(200);
  });

  it('rejects a bad limit or an unknown query parameter (400)', async () => {
    expectError(
      await api.get('/payment-providers', { key: tenant.merchant_secret_key, query: { limit: 101 } }),
      400,
      'validation_error',
    );
    expectError(
      await api.get('/payment-providers', { key: tenant.merchant_secret_key, query: { status: 'all' } }),
      400,
      'validation_error',
    );
  });
});

describe('GET /api/v1/payment-providers/:provider_id', () => {
  let tenant: Tenant;
  before(async () => {
    tenant = await createTenant();
  });

  it('returns the full entry with OAuth fields and capabilities', async () => {
    const res = await api.get('/payment-providers/pp_provider_c', { key: tenant.merchant_secret_key });
    expect(res.status, res.text).to.equal(200);
    expect(Object.keys(res.body).sort()).to.deep.equal([...ENTRY_KEYS].sort());
    expect(res.body).to.deep.include({
      id: 'pp_provider_c',
      slug: 'provider_c',
      oauth_authorization_url: 'https://connect.provider-c.example/oauth/authorize',
      oauth_token_url: 'https://connect.provider-c.example/oauth/token',
      oauth_scopes: 'payments:write payments:read',
      oauth_pkce_required: true,
      supports_installments: true,
      supported_card_brands: ['visa', 'mastercard', 'elo'],
      supported_payment_methods: ['card', 'pix', 'wallet'],
    });
    expect(res.body.supported_currencies).to.include('BRL');
    expect(res.body.supported_countries).to.include('BR');
  });

  it('has null OAuth fields and pkce false for an api_key-only provider', async () => {
    const res = await api.get('/payment-providers/pp_provider_a', { key: tenant.merchant_secret_key });
    expect(res.body).to.include({
      oauth_authorization_url: null,
      oauth_token_url: null,
      oauth_scopes: null,
      oauth_pkce_required: false,
    });
    expect(res.body.supported_auth_methods).to.deep.equal(['api_key']);
  });

  it('also finds a provider by slug', async () => {
    const res = await api.get('/payment-providers/checkout', { key: tenant.merchant_secret_key });
    expect(res.status).to.equal(200);
    expect(res.body.id).to.equal('pp_checkout');
  });

  it('returns an inactive provider with is_active false (it is not listed, but existing references stay readable)', async () => {
    const res = await api.get('/payment-providers/pp_provider_e', { key: tenant.merchant_secret_key });
    expect(res.status).to.equal(200);
    expect(res.body).to.include({ slug: 'provider_e', is_active: false });
  });

  it('returns 404 for an unknown or malformed id', async () => {
    expectError(
      await api.get('/payment-providers/pp_nope', { key: tenant.merchant_secret_key }),
      404,
      'not_found_error',
    );
    expectError(
      await api.get('/payment-providers/Not-An-Id!', { key: tenant.merchant_secret_key }),
      404,
      'not_found_error',
    );
  });

  it('accepts an organization key with merchant_id and refuses one without (403)', async () => {
    const ok = await api.get('/payment-providers/pp_provider_b', {
      key: tenant.organization_secret_key,
      query: { merchant_id: tenant.merchant_id },
    });
    expect(ok.status).to.equal(200);
    expectError(
      await api.get('/payment-providers/pp_provider_b', { key: tenant.organization_secret_key }),
      403,
      'authorization_error',
    );
  });

  it('requires connectors:read (403)', async () => {
    const key = await keyWithScopes(tenant, ['connectors:write']);
    expectError(await api.get('/payment-providers/pp_provider_b', { key }), 403, 'authorization_error');
  });
});

describe('Payment provider catalog: credential fields and webhook secret format for connector forms', () => {
  let tenant: Tenant;
  before(async () => {
    tenant = await createTenant();
  });

  it("gives each auth method's credential fields as JSON Schema that accepts exactly what POST …/connectors accepts", async () => {
    const Ajv = (await import('ajv')).default;
    const ajv = new Ajv({ strict: false });
    const list = await api.get('/payment-providers', { key: tenant.merchant_secret_key, query: { limit: 100 } });
    for (const provider of list.body.data) {
      const entry = (await api.get(`/payment-providers/${provider.slug}`, { key: tenant.merchant_secret_key })).body;
      expect(entry.credential_schemas).to.deep.equal(provider.credential_schemas);
      expect(entry.webhook_secret_format, provider.slug).to.be.a('string').and.not.empty;
      expect(Object.keys(entry.credential_schemas)).to.deep.equal(entry.supported_auth_methods);
      for (const [method, schema] of Object.entries(entry.credential_schemas as Record<string, object>)) {
        const validate = ajv.compile(schema);
        expect(validate(validCredentials(provider.slug, method)), `${provider.slug} ${method}`).to.equal(true);
        expect(validate({}), `${provider.slug} ${method} empty`).to.equal(false);
        // The form's verdict is the API's: what the schema refuses, creating a connector refuses too.
        const refused = await api.post(`/merchants/${tenant.merchant_id}/connectors`, {
          key: tenant.merchant_secret_key,
          body: connectorBody(provider.slug, { auth_method: method, credentials: {} }),
        });
        expect(refused.status).to.equal(400);
      }
    }
  });

  it('names the provider_a secret format (whsec_) and provider_b (JSON username/password)', async () => {
    const a = await api.get('/payment-providers/provider_a', { key: tenant.merchant_secret_key });
    expect(a.body.webhook_secret_format).to.include('whsec_');
    expect(a.body.credential_schemas.api_key.required).to.deep.equal(['secret_key']);
    const b = await api.get('/payment-providers/provider_b', { key: tenant.merchant_secret_key });
    expect(b.body.webhook_secret_format).to.include('username').and.include('password');
    expect(b.body.credential_schemas.api_key.properties).to.have.all.keys(['username', 'password', 'merchant_account']);
    // provider_c: one shape per auth method, like the connector validation (an oauth2 shape is no api_key).
    const c = (await api.get('/payment-providers/provider_c', { key: tenant.merchant_secret_key })).body;
    expect(c.credential_schemas.api_key.properties).to.have.all.keys(['access_token']);
    expect(c.credential_schemas.oauth2.properties).to.have.all.keys(['client_id', 'client_secret']);
  });

  it('documents the new fields in OpenAPI', async () => {
    const doc = (await api.get('/openapi.json')).body;
    const text = JSON.stringify(doc);
    expect(text).to.include('credential_schemas').and.include('webhook_secret_format');
  });
});

describe('GET /api/v1/org/payment-providers (organization Dashboard)', () => {
  it('serves the same catalog to an organization session (x-organization-id); API keys and merchant tokens are 401', async () => {
    const tenant = await createTenant();
    const user = await createOrganizationUser([tenant.organization_id]);
    const session = bearer((await signIn('organization', user)).access_token as string, {
      'x-organization-id': tenant.organization_id,
    });
    const list = await api.get('/org/payment-providers', { headers: session });
    expect(list.status, list.text).to.equal(200);
    const byKey = await api.get('/payment-providers', { key: tenant.merchant_secret_key });
    expect(list.body).to.deep.equal(byKey.body);
    const one = await api.get('/org/payment-providers/provider_c', { headers: session });
    expect(one.status, one.text).to.equal(200);
    expect(Object.keys(one.body).sort()).to.deep.equal([...ENTRY_KEYS].sort());
    expect(one.body.credential_schemas).to.have.all.keys(['api_key', 'oauth2']);
    expectError(await api.get('/org/payment-providers/pp_nope', { headers: session }), 404, 'not_found_error');

    expectError(await api.get('/org/payment-providers', { key: tenant.merchant_secret_key }), 401);
    const merchantUser = await createMerchantUser(tenant.organization_id, [tenant.merchant_id]);
    const merchantToken = (await signIn('merchant', merchantUser)).access_token as string;
    expect(
      (
        await api.get('/org/payment-providers', {
          headers: bearer(merchantToken, { 'x-merchant-id': tenant.merchant_id }),
        })
      ).status,
    ).to.equal(401);
    expect(
      (await api.get('/org/payment-providers', { headers: { authorization: session.authorization } })).status,
    ).to.equal(400);
  });

  it('/payment-providers itself takes API keys only (Document 3): a Dashboard token is 401', async () => {
    const tenant = await createTenant();
    const user = await createOrganizationUser([tenant.organization_id]);
    const token = (await signIn('organization', user)).access_token as string;
    const res = await api.get('/payment-providers', { headers: bearer(token) });
    expectError(res, 401, 'authentication_error');
  });
});
