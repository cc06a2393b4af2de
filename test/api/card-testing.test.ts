/**
 * Card-testing defences of browser card enrolment (review H2): a decline is counted before the provider sees the
 * card, atomically, so enrolments started in parallel in one browser session cannot pass the per-session decline
 * cap; and a browser-named connectorId must be one the merchant's card routing uses (and, in production, live).
 */
import { expect } from 'chai';
import {
  BREAKER_DECLINE_SHARE,
  BREAKER_MIN_VERIFICATIONS,
  MAX_DECLINES_PER_SESSION,
} from '../../api/http/browser-limits';
import { loadConfig } from '../../domain/platform/config';
import { startApi, type RunningApi } from '../../api/server';
import { stack } from '../helpers/stack';
import { activityOf } from '../helpers/merchants';
import { api } from '../helpers/http';
import { createTenant, type Tenant } from '../helpers/factories';
import { expectError } from '../helpers/envelope';
import { rows } from '../helpers/connectors';
import {
  CARDS,
  cardConnector,
  createCustomer,
  enrolmentToken,
  mintToken,
  openSession,
  publicHeaders,
  withEnrolmentToken,
} from '../helpers/vault';

async function routeCardsTo(tenant: Tenant, connectorId: string): Promise<void> {
  const res = await api.post(`/merchants/${tenant.merchant_id}/routing-profiles`, {
    key: tenant.merchant_secret_key,
    body: { name: 'Cards', is_active: true, payment_method: '*', default_merchant_connector_id: connectorId },
  });
  expect(res.status, res.text).to.equal(201);
}

describe('Card testing: browser enrolment', () => {
  let tenant: Tenant;
  let customerId: string;
  let routed: any;
  beforeEach(async () => {
    tenant = await createTenant();
    routed = await cardConnector(tenant, 'provider_a');
    await routeCardsTo(tenant, routed.id);
    customerId = await createCustomer(tenant);
  });
  const enrol = async (sessionId: string, body: Record<string, unknown>) =>
    api.post(`/sessions/${sessionId}/payment-instruments`, {
      headers: publicHeaders(tenant.merchant_public_key),
      body: await withEnrolmentToken(tenant, { customerId, currency: 'USD', ...body }),
    });

  it(`parallel enrolments in one session cannot pass the cap of ${MAX_DECLINES_PER_SESSION} declines`, async function () {
    this.timeout(120_000);
    const session = await openSession(tenant);
    const tokens = [];
    for (let i = 0; i < 8; i += 1) tokens.push((await mintToken(tenant, session, CARDS.doNotHonor)).tokenId);
    const answers = await Promise.all(tokens.map((tokenId) => enrol(session.sessionId, { tokenId })));
    const declined = answers.filter((res) => res.status === 201 && res.body.status === 'declined');
    const refused = answers.filter((res) => res.status === 429);
    expect(declined.length + refused.length, answers.map((res) => res.text).join('\n')).to.equal(8);
    expect(declined.length).to.be.at.most(MAX_DECLINES_PER_SESSION);
    // The refused ones never reached a provider: their tokens are unused.
    const unused = await rows(
      `select id from card_tokens where id in (${tokens.map(() => '?').join(', ')}) and status = 'active'`,
      tokens,
    );
    expect(unused).to.have.length(refused.length);
  });

  it('an approved verification gives its reserved decline back', async function () {
    this.timeout(60_000);
    const session = await openSession(tenant);
    for (let i = 0; i < MAX_DECLINES_PER_SESSION + 1; i += 1) {
      const res = await enrol(session.sessionId, { tokenId: (await mintToken(tenant, session, CARDS.visa)).tokenId });
      expect(res.status, res.text).to.equal(201);
    }
  });

  it("refuses a named connectorId the merchant's card routing does not use with 422 CONNECTOR_NOT_ELIGIBLE", async function () {
    this.timeout(60_000);
    const unrouted = await cardConnector(tenant, 'provider_a');
    const session = await openSession(tenant);
    const token = await mintToken(tenant, session, CARDS.visa);
    const res = await enrol(session.sessionId, { tokenId: token.tokenId, connectorId: unrouted.id });
    expectError(res, 422, 'business_rule_error', 'CONNECTOR_NOT_ELIGIBLE');
    expect((await rows('select status from card_tokens where id = ?', [token.tokenId]))[0].status).to.equal('active');
    const ok = await enrol(session.sessionId, { tokenId: token.tokenId, connectorId: routed.id });
    expect(ok.status, ok.text).to.equal(201);
    expect(ok.body.verified).to.equal(true);
  });
});

describe('Card enrolment errors do not map the merchant’s routing (review L7)', () => {
  it('422 NO_ELIGIBLE_CONNECTOR carries no skipped connectors or reasons', async function () {
    this.timeout(60_000);
    const tenant = await createTenant();
    const connector = await cardConnector(tenant, 'provider_a');
    await routeCardsTo(tenant, connector.id);
    const session = await openSession(tenant);
    const token = await mintToken(tenant, session, CARDS.visa);
    const res = await api.post(`/sessions/${session.sessionId}/payment-instruments`, {
      headers: publicHeaders(tenant.merchant_public_key),
      body: await withEnrolmentToken(tenant, {
        tokenId: token.tokenId,
        customerId: await createCustomer(tenant),
        currency: 'JPY',
      }),
    });
    const error = expectError(res, 422, 'business_rule_error', 'NO_ELIGIBLE_CONNECTOR');
    expect(error.details).to.equal(undefined);
    expect(res.text).to.not.include(connector.id);
  });
});

describe('Card testing: the per-key decline-ratio breaker', () => {
  let limited: RunningApi;
  before(async () => {
    // Behind a trusted loopback proxy, so each attempt can come from another address (the per-address cap is 10).
    limited = await startApi(loadConfig({ ...stack().env, TRUSTED_PROXIES: '127.0.0.0/8,::1' }), 0);
  });
  after(() => limited.stop());

  it(`pauses browser verifications of a key once ${BREAKER_DECLINE_SHARE * 100}% of ${BREAKER_MIN_VERIFICATIONS} are declined, and tells the merchant once`, async function () {
    this.timeout(120_000);
    const tenant = await createTenant();
    const connector = await cardConnector(tenant, 'provider_a');
    await routeCardsTo(tenant, connector.id);
    const customerId = await createCustomer(tenant);
    let n = 0;
    const attempt = async (card: (typeof CARDS)[keyof typeof CARDS]) => {
      n += 1;
      const headers = { ...publicHeaders(tenant.merchant_public_key), 'x-forwarded-for': `198.18.7.${n}` };
      const opened = await api.post('/sessions', { baseUrl: limited.url, headers, body: {} });
      expect(opened.status, opened.text).to.equal(201);
      const token = await mintToken(tenant, opened.body, card);
      return api.post(`/sessions/${opened.body.sessionId}/payment-instruments`, {
        baseUrl: limited.url,
        headers,
        body: { tokenId: token.tokenId, currency: 'USD', enrolmentToken: await enrolmentToken(tenant, customerId) },
      });
    };
    for (let i = 0; i < BREAKER_MIN_VERIFICATIONS; i += 1) {
      const res = await attempt(CARDS.doNotHonor);
      expect(res.body.status, res.text).to.equal('declined');
    }
    for (let i = 0; i < 2; i += 1) {
      const paused = await attempt(CARDS.visa);
      expectError(paused, 429, 'rate_limit_error', 'RATE_LIMIT_EXCEEDED');
      expect(paused.body.error.message).to.match(/paused/);
    }
    const notices = (await activityOf(tenant.merchant_id)).filter((a) => a.action === 'card_verifications.paused');
    expect(notices).to.have.length(1);
  });
});
