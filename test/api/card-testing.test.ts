/**
 * Card-testing defences of browser card enrolment: a decline is counted before the provider sees the
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
import { newSession } from '../helpers/checkout';
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
  tokenBody,
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

describe('Card enrolment errors do not map the merchant’s routing', () => {
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
    // Behind a trusted loopback proxy, so each attempt can come from another address (the per-address cap is 10);
    // the key's own budget raised, as a busy merchant's would be, so only the card-testing limits answer here.
    limited = await startApi(
      loadConfig({ ...stack().env, TRUSTED_PROXIES: '127.0.0.0/8,::1', RATE_LIMIT_REQUESTS: '1000' }),
      0,
    );
  });
  after(() => limited.stop());

  async function merchantWithCards() {
    const tenant = await createTenant();
    const connector = await cardConnector(tenant, 'provider_a');
    await routeCardsTo(tenant, connector.id);
    return { tenant, customerId: await createCustomer(tenant) };
  }

  /** Opens a browser session from `ip` (for a checkout, or with an enrolment token) and enrols `card` in it. */
  function attempts(tenant: Tenant, customerId: string) {
    const headersFrom = (ip: string) => ({ ...publicHeaders(tenant.merchant_public_key), 'x-forwarded-for': ip });
    const open = async (ip: string, body: Record<string, unknown> = {}) => {
      const opened = await api.post('/sessions', { baseUrl: limited.url, headers: headersFrom(ip), body });
      expect(opened.status, opened.text).to.equal(201);
      return opened.body;
    };
    const enrol = async (ip: string, session: any, card: (typeof CARDS)[keyof typeof CARDS]) => {
      const minted = await api.post('/tokens', {
        baseUrl: limited.url,
        headers: { ...headersFrom(ip), ...publicHeaders(tenant.merchant_public_key, session.sessionId) },
        body: tokenBody(session, card, { purpose: 'instrument_enrollment' }),
      });
      expect(minted.status, minted.text).to.equal(201);
      const token = minted.body;
      const body = session.checkoutSessionId
        ? { tokenId: token.tokenId, currency: 'USD' }
        : { tokenId: token.tokenId, currency: 'USD', enrolmentToken: await enrolmentToken(tenant, customerId) };
      return api.post(`/sessions/${session.sessionId}/payment-instruments`, {
        baseUrl: limited.url,
        headers: headersFrom(ip),
        body,
      });
    };
    return {
      open,
      enrol,
      attempt: async (ip: string, card: (typeof CARDS)[keyof typeof CARDS]) => enrol(ip, await open(ip), card),
    };
  }
  const pauseNotices = async (tenant: Tenant) =>
    (await activityOf(tenant.merchant_id)).filter((a) => a.action === 'card_verifications.paused');

  it('the card-testing breaker is exact: enrolments refused before the provider never count as clean attempts', async function () {
    this.timeout(240_000);
    const { tenant, customerId } = await merchantWithCards();
    const { open, enrol, attempt } = attempts(tenant, customerId);
    // Each session over-subscribed in parallel: the per-session cap lets 3 declines reach the provider and refuses
    // the other 5, which must not pad the key's share of declines (30 refusals next to 18 provider declines).
    for (let s = 1; s <= 6; s += 1) {
      const ip = `198.18.8.${s}`;
      const session = await open(ip);
      const answers = await Promise.all(Array.from({ length: 8 }, () => enrol(ip, session, CARDS.doNotHonor)));
      const declined = answers.filter((res) => res.status === 201 && res.body.status === 'declined');
      expect(declined, answers.map((res) => res.text).join('\n')).to.have.length(MAX_DECLINES_PER_SESSION);
    }
    expect(BREAKER_MIN_VERIFICATIONS).to.equal(6 * MAX_DECLINES_PER_SESSION + 2);
    for (const ip of ['198.18.8.100', '198.18.8.101']) {
      const res = await attempt(ip, CARDS.doNotHonor);
      expect(res.body.status, res.text).to.equal('declined');
    }
    // Every verification that reached a provider was declined: the breaker is on for the addresses that declined.
    const paused = await attempt('198.18.8.1', CARDS.visa);
    expectError(paused, 429, 'rate_limit_error', 'RATE_LIMIT_EXCEEDED');
    expect(paused.body.error.message).to.match(/paused/);
    expect(await pauseNotices(tenant)).to.have.length(1);
  });

  it(`the card-testing breaker is aimed: once ${BREAKER_DECLINE_SHARE * 100}% of ${BREAKER_MIN_VERIFICATIONS} verifications are declined it pauses the checkout, address and card that declined, not other buyers, and tells the merchant once`, async function () {
    this.timeout(180_000);
    const { tenant, customerId } = await merchantWithCards();
    const { open, enrol, attempt } = attempts(tenant, customerId);
    const { session: checkout } = await newSession(tenant, { selected_currency: 'USD' });
    const first = await enrol(
      '198.18.7.1',
      await open('198.18.7.1', { checkoutSessionId: checkout.id }),
      CARDS.doNotHonor,
    );
    expect(first.body.status, first.text).to.equal('declined');
    for (let n = 2; n <= BREAKER_MIN_VERIFICATIONS; n += 1) {
      const res = await attempt(`198.18.7.${n}`, CARDS.doNotHonor);
      expect(res.body.status, res.text).to.equal('declined');
    }
    const refused = [
      // an address that declined, in a fresh session, with a good card
      await attempt('198.18.7.2', CARDS.visa),
      // the checkout that declined, from a fresh address and browser session
      await enrol('198.18.9.1', await open('198.18.9.1', { checkoutSessionId: checkout.id }), CARDS.visa),
      // the card that declined, from a fresh address and session
      await attempt('198.18.9.2', CARDS.doNotHonor),
    ];
    for (const res of refused) {
      expectError(res, 429, 'rate_limit_error', 'RATE_LIMIT_EXCEEDED');
      expect(res.body.error.message).to.match(/paused/);
    }
    // Another buyer (fresh address, session and card) is not paused: the breaker is no weapon against the merchant.
    const buyer = await attempt('198.18.9.3', CARDS.mastercard);
    expect(buyer.status, buyer.text).to.equal(201);
    expect(buyer.body.verified).to.equal(true);
    const notices = await pauseNotices(tenant);
    expect(notices).to.have.length(1);
    expect(notices[0].changes.paused).to.match(/checkout.*address.*card/);
    const events = await api.get('/events', {
      key: tenant.merchant_secret_key,
      query: { type: 'card_verifications.paused' },
    });
    expect(events.status, events.text).to.equal(200);
    expect(events.body.data).to.have.length(1);
    expect(events.body.data[0].data.object).to.include({
      object: 'card_verifications_pause',
      merchant_id: tenant.merchant_id,
    });
    expect(events.body.data[0].data.object.paused).to.deep.equal([
      'browser_session',
      'checkout_session',
      'client_address',
      'card',
    ]);
    expect(JSON.stringify(events.body.data[0])).to.not.match(/198\.18\.|4000000000000002/);
  });
});
