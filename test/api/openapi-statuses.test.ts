/**
 * Every status an operation answers is in its OpenAPI responses (the fuzzer's "no undocumented status code"):
 * regression cases for the causes Schemathesis found (test/reliability/api-fuzz.reliability.ts).
 */
import { expect } from 'chai';
import Ajv from 'ajv';
import { api, type ApiResponse } from '../helpers/http';
import { createTenant, uniqueEmail } from '../helpers/factories';
import { bearer, createMerchantUser, signIn } from '../helpers/dashboard';
import { subscribed } from '../helpers/subscriptions';
import { ROUTES } from '../../api/app';

const PREFIX = '/api/v1';

describe('OpenAPI: documented statuses', () => {
  let doc: any;
  before(async () => {
    doc = (await api.get('/openapi.json')).body;
  });

  const expectDocumented = (method: string, path: string, res: ApiResponse) => {
    const responses = doc.paths[PREFIX + path][method].responses as Record<string, unknown>;
    expect(responses, `${method.toUpperCase()} ${path} answered ${res.status}: ${res.text}`).to.have.property(
      String(res.status),
    );
    expect((responses[String(res.status)] as any).content['application/json'].schema).to.deep.equal({
      $ref: '#/components/schemas/Error',
    });
  };

  // Unauthenticated routes that check a credential of their own answer 401 when it is wrong.
  const wrongCredential: Array<[string, Record<string, unknown>]> = [
    ['/auth/login', { email: 'nobody@example.com', password: 'Wrong-password-1' }],
    ['/auth/organization/login', { email: 'nobody@example.com', password: 'Wrong-password-1' }],
    ['/auth/merchant/login', { email: 'nobody@example.com', password: 'Wrong-password-1' }],
    ['/auth/refresh', { refresh_token: 'rt_not_a_real_token' }],
    [
      '/invitations/accept',
      { token: 'not-a-real-token', password: 'Long-enough-pass-1', confirm_password: 'Long-enough-pass-1' },
    ],
    ['/invitations/decline', { token: 'not-a-real-token' }],
    ['/auth/merchant/accept-invitation', { token: 'not-a-real-token', name: 'Ann', password: 'Long-enough-pass-1' }],
  ];
  for (const [path, body] of wrongCredential) {
    it(`documents the 401 of POST ${path} (a wrong credential of its own)`, async () => {
      const res = await api.post(path, { body });
      expect(res.status, res.text).to.equal(401);
      expectDocumented('post', path, res);
    });
  }

  it('documents the 200 of an Idempotency-Key replay, with the first response as its body (POST /merchants)', async () => {
    const tenant = await createTenant();
    const headers = { 'idempotency-key': `replay-${Date.now()}` };
    const body = { name: 'Replayed merchant', primary_email: uniqueEmail('replay') };
    const first = await api.post('/merchants', { key: tenant.organization_secret_key, headers, body });
    expect(first.status, first.text).to.equal(201);
    const replay = await api.post('/merchants', { key: tenant.organization_secret_key, headers, body });
    expect(replay.status, replay.text).to.equal(200);
    expect(replay.body).to.deep.equal(first.body);
    const schema = doc.paths[`${PREFIX}/merchants`].post.responses['200']?.content?.['application/json']?.schema;
    expect(schema, 'POST /merchants documents 200').to.be.an('object');
    const ajv = new Ajv({ strict: false, validateFormats: false });
    ajv.addSchema(doc, 'openapi');
    const validate = ajv.compile({
      $ref: 'openapi#/paths/~1api~1v1~1merchants/post/responses/200/content/application~1json/schema',
    });
    expect(validate(replay.body), JSON.stringify(validate.errors)).to.equal(true);
  });

  it('documents 200 on every route that takes an Idempotency-Key', () => {
    for (const route of ROUTES.filter((candidate) => candidate.idempotency)) {
      const path = PREFIX + route.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
      expect(doc.paths[path][route.method].responses, `${route.method} ${path}`).to.have.property('200');
    }
  });

  it('documents 401 and 429 on the sign-in and change-password routes, and 401 on reset-password', () => {
    for (const path of ['/auth/login', '/auth/organization/login', '/auth/merchant/login'])
      expect(doc.paths[PREFIX + path].post.responses, path).to.include.keys(['401', '429']);
    for (const path of [
      '/auth/change-password',
      '/auth/merchant/change-password',
      '/auth/organization/change-password',
    ])
      expect(doc.paths[PREFIX + path].post.responses, path).to.include.keys(['401', '429']);
    for (const path of [
      '/auth/forgot-password',
      '/auth/merchant/forgot-password',
      '/auth/organization/forgot-password',
    ])
      expect(doc.paths[PREFIX + path].post.responses, path).to.include.keys(['429']);
    expect(doc.paths[`${PREFIX}/auth/reset-password`].post.responses).to.include.keys(['401']);
  });

  // The stateful phase of the fuzzer (links: list → subscription → its moves) found these: a state-machine
  // refusal is a 422 business_rule_error, which no operation documented.
  it('documents the 422 of a subscription move its state refuses, on the API-key and the merchant Dashboard routes', async () => {
    const sub = await subscribed(new Date());
    const id = sub.state.subscriptionId;
    const apiPath = `/merchants/${sub.tenant.merchant_id}/subscriptions/${id}/resume`;
    const byKey = await api.post(apiPath, { key: sub.tenant.merchant_secret_key, body: {} });
    expect(byKey.status, byKey.text).to.equal(422);
    expectDocumented('post', '/merchants/{merchant_id}/subscriptions/{subscription_id}/resume', byKey);

    const user = await createMerchantUser(sub.tenant.organization_id, [sub.tenant.merchant_id]);
    const { access_token: token } = await signIn('merchant', user);
    const headers = bearer(token as string, { 'x-merchant-id': sub.tenant.merchant_id });
    const byDashboard = await api.post(`/merchant/subscriptions/${id}/resume`, { headers, body: {} });
    expect(byDashboard.status, byDashboard.text).to.equal(422);
    expectDocumented('post', '/merchant/subscriptions/{id}/resume', byDashboard);
  });

  it('documents 422 on every operation whose business rules can refuse a well-formed request', () => {
    const operations: Array<[string, string]> = [
      ['post', '/transactions'],
      ['post', '/transactions/{transactionId}/capture'],
      ['post', '/transactions/{transactionId}/void'],
      ['post', '/transactions/{transactionId}/refunds'],
      ['post', '/merchant/transactions/{transactionId}/capture'],
      ['post', '/merchant/transactions/{transactionId}/void'],
      ['post', '/merchant/transactions/{transactionId}/refunds'],
      ['post', '/tokens'],
      ['get', '/sessions/checkout'],
      ['post', '/sessions/{sessionId}/refresh'],
      ['post', '/sessions/{sessionId}/payment-instruments'],
      ['post', '/sessions/{sessionId}/checkout/confirm'],
      ['post', '/merchants/{merchant_id}/payment-instruments'],
      ['patch', '/merchants/{merchant_id}/payment-instruments/{payment_instrument_id}'],
      ['patch', '/merchants/{merchant_id}/routing-profiles/{profile_id}/default-connector'],
      ['patch', '/checkout-sessions/{id}'],
      ['post', '/checkout-sessions/{id}/identify'],
      ['post', '/checkout-sessions/{id}/abandon'],
      ['post', '/checkout-sessions/{id}/items'],
      ['patch', '/checkout-sessions/{id}/items/{itemId}'],
      ['delete', '/checkout-sessions/{id}/items/{itemId}'],
      ['post', '/merchants/{merchant_id}/webhook-configs/{webhook_id}/redeliver'],
      ['post', '/merchants/{merchant_id}/webhook-configs/{webhook_id}/recover'],
      ['post', '/merchant/webhook-configs/{webhook_id}/redeliver'],
    ];
    for (const action of ['cancel', 'reactivate', 'pause', 'resume', 'change-offer', 'change-payment-instrument'])
      operations.push(
        ['post', `/merchants/{merchant_id}/subscriptions/{subscription_id}/${action}`],
        ['post', `/merchant/subscriptions/{id}/${action}`],
      );
    const missing = operations.filter(([method, path]) => !doc.paths[PREFIX + path]?.[method]?.responses?.['422']);
    expect(missing.map((operation) => operation.join(' ')).join('\n'), 'operations without 422').to.equal('');
  });
});
