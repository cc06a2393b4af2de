/**
 * Document 3 "Subscriptions (Dashboard)" against the real stack: a merchant user's session with x-merchant-id reads
 * the merchant's subscriptions and operates on them through the same workflow Updates as the public API; every
 * transition it causes records triggered_by admin and the `{id, type, name, email}` snapshot of the user.
 */
import { expect } from 'chai';
import { startSubscriptionWorkflow } from '../../api/temporal/subscriptions';
import { createOffer } from '../helpers/catalog';
import { bearer, createMerchantUser, createOrganizationUser, signIn } from '../helpers/dashboard';
import { rows } from '../helpers/db';
import { expectError } from '../helpers/envelope';
import { addMerchant } from '../helpers/factories';
import { api } from '../helpers/http';
import { stack } from '../helpers/stack';
import { subscribed, type Subscribed } from '../helpers/subscriptions';
import { saveCard } from '../helpers/vault';

interface Signed {
  sub: Subscribed;
  user: { id: string; email: string };
  headers: Record<string, string>;
}

async function signedInOver(sub: Subscribed): Promise<Signed> {
  const user = await createMerchantUser(sub.tenant.organization_id, [sub.tenant.merchant_id]);
  const { access_token: token } = await signIn('merchant', user);
  return { sub, user, headers: bearer(token as string, { 'x-merchant-id': sub.tenant.merchant_id }) };
}

async function running(fixture = {}): Promise<Signed> {
  const sub = await subscribed(new Date(), fixture);
  await startSubscriptionWorkflow(stack().api.deps.temporal.client, sub.state);
  return signedInOver(sub);
}

const path = (s: Signed, action = '') => `/merchant/subscriptions/${s.sub.state.subscriptionId}${action}`;
const post = (s: Signed, action: string, body: Record<string, unknown> = {}) =>
  api.post(path(s, `/${action}`), { headers: s.headers, body });
const transitions = async (s: Signed) => {
  const res = await api.get(path(s, '/transitions'), { headers: s.headers });
  expect(res.status, res.text).to.equal(200);
  // A Dashboard list: {data, meta} with flat pagination (Document 1), newest first.
  expect(res.body.meta).to.include({ page: 1 });
  return res.body.data as any[];
};

describe('Dashboard subscriptions', () => {
  it('lists with flat meta and filters, and gets the Dashboard object (connector and network ids), bare', async () => {
    const s = await running();
    const list = await api.get('/merchant/subscriptions', {
      headers: s.headers,
      query: { status: 'active', customer_id: s.sub.customerId },
    });
    expect(list.status, list.text).to.equal(200);
    expect(list.body.data.map((x: any) => x.id)).to.deep.equal([s.sub.state.subscriptionId]);
    expect(list.body.meta).to.include({ page: 1, limit: 20, total: 1 });
    expect(list.body.meta).to.not.have.property('pagination');
    const none = await api.get('/merchant/subscriptions', { headers: s.headers, query: { status: 'paused' } });
    expect(none.body.data).to.deep.equal([]);
    const one = await api.get(path(s), { headers: s.headers });
    expect(one.status, one.text).to.equal(200);
    expect(one.body).to.not.have.property('data');
    expect(one.body).to.include({ id: s.sub.state.subscriptionId, status: 'active', current_amount: 999 });
    const [stored] = await rows(
      'select preferred_connector_id, initial_network_transaction_id from subscriptions where id = ?',
      [s.sub.state.subscriptionId],
    );
    expect(stored.preferred_connector_id).to.be.a('string');
    expect(one.body).to.include(stored);
  });

  it("404 for another merchant's subscription, on reads and on every operation", async () => {
    const s = await running();
    const other = await subscribed(new Date());
    const foreign = `/merchant/subscriptions/${other.state.subscriptionId}`;
    expectError(await api.get(foreign, { headers: s.headers }), 404, 'not_found_error', 'SUBSCRIPTION_NOT_FOUND');
    expect((await api.get(`${foreign}/transitions`, { headers: s.headers })).status).to.equal(404);
    const cancel = await api.post(`${foreign}/cancel`, { headers: s.headers, body: { at_period_end: false } });
    expectError(cancel, 404, 'not_found_error', 'SUBSCRIPTION_NOT_FOUND');
    const pause = await api.post(`${foreign}/pause`, { headers: s.headers, body: {} });
    expect(pause.status).to.equal(404);
    const list = await api.get('/merchant/subscriptions', { headers: s.headers, query: { limit: 100 } });
    expect(list.body.data.map((x: any) => x.id)).to.not.include(other.state.subscriptionId);
  });

  it('a viewer reads but cannot change: pause by a viewer is 403 and the subscription stays active', async () => {
    const s = await running();
    const viewer = await createMerchantUser(s.sub.tenant.organization_id, [s.sub.tenant.merchant_id], {
      role: 'viewer',
    });
    const token = (await signIn('merchant', viewer)).access_token as string;
    const headers = bearer(token, { 'x-merchant-id': s.sub.tenant.merchant_id });
    expect((await api.get(path(s), { headers })).status).to.equal(200);
    expectError(await api.post(path(s, '/pause'), { headers, body: {} }), 403, 'authorization_error');
    expect((await api.get(path(s), { headers: s.headers })).body.status).to.equal('active');
  });

  it('membership is required: 403 for a non-member, a pending member and another merchant of the organization; 400 without x-merchant-id', async () => {
    const s = await running();
    const sibling = await addMerchant(s.sub.tenant);
    const outsider = await createMerchantUser(s.sub.tenant.organization_id, [sibling.merchantId]);
    const outsiderToken = (await signIn('merchant', outsider)).access_token as string;
    for (const headers of [
      bearer(outsiderToken, { 'x-merchant-id': s.sub.tenant.merchant_id }),
      bearer(outsiderToken, { 'x-merchant-id': 'mrc_doesnotexist' }),
    ]) {
      expectError(await api.get(path(s), { headers }), 403, 'authorization_error');
      expect((await api.post(path(s, '/pause'), { headers, body: {} })).status).to.equal(403);
    }
    const pending = await createMerchantUser(s.sub.tenant.organization_id, [s.sub.tenant.merchant_id], {
      status: 'pending',
    });
    // A pending member has no password yet in real life; signing in here proves the membership status is checked.
    const pendingToken = (await signIn('merchant', pending)).access_token as string;
    const refused = await api.get('/merchant/subscriptions', {
      headers: bearer(pendingToken, { 'x-merchant-id': s.sub.tenant.merchant_id }),
    });
    expect(refused.status, refused.text).to.equal(403);
    const noHeader = await api.get('/merchant/subscriptions', { headers: { authorization: s.headers.authorization } });
    expect(noHeader.status).to.equal(400);
    // Nothing changed on the subscription.
    expect((await api.get(path(s), { headers: s.headers })).body.status).to.equal('active');
  });

  it('Dashboard tokens only: an API key and an organization user token are 401', async () => {
    const s = await running();
    const byKey = await api.get('/merchant/subscriptions', {
      key: s.sub.tenant.merchant_secret_key,
      headers: { 'x-merchant-id': s.sub.tenant.merchant_id },
    });
    expectError(byKey, 401, 'authentication_error');
    expect(byKey.body.error.message).to.match(/API keys are not accepted/);
    const cancelByKey = await api.post(path(s, '/cancel'), {
      key: s.sub.tenant.merchant_secret_key,
      headers: { 'x-merchant-id': s.sub.tenant.merchant_id },
      body: { at_period_end: false },
    });
    expect(cancelByKey.status).to.equal(401);
    const orgUser = await createOrganizationUser([s.sub.tenant.organization_id]);
    const orgToken = (await signIn('organization', orgUser)).access_token as string;
    const byOrg = await api.get('/merchant/subscriptions', {
      headers: bearer(orgToken, { 'x-merchant-id': s.sub.tenant.merchant_id }),
    });
    expect(byOrg.status).to.equal(401);
    expect((await api.get(path(s), { headers: s.headers })).body.status).to.equal('active');
  });

  it('cancel at period end records the signed-in user as actor (triggered_by admin); reactivate takes it back', async () => {
    const s = await running();
    const cancel = await post(s, 'cancel', { at_period_end: true, reason: 'too expensive' });
    expect(cancel.status, cancel.text).to.equal(200);
    expect(cancel.body).to.include({
      status: 'active',
      cancel_at_period_end: true,
      cancellation_reason: 'too expensive',
    });
    expect(cancel.body).to.have.property('initial_network_transaction_id');
    const again = await post(s, 'cancel', { at_period_end: true });
    expectError(again, 422, 'business_rule_error', 'INVALID_STATE_TRANSITION');
    const back = await post(s, 'reactivate');
    expect(back.status, back.text).to.equal(200);
    expect(back.body).to.include({ cancel_at_period_end: false, cancellation_reason: null });
    const actor = { id: s.user.id, type: 'merchant_user', name: 'Mia Merchant', email: s.user.email };
    const [reactivation, cancellation, creation] = await transitions(s);
    expect(reactivation).to.deep.include({ transition_type: 'reactivation', triggered_by: 'admin', actor });
    expect(cancellation).to.deep.include({
      transition_type: 'cancellation',
      triggered_by: 'admin',
      actor,
      reason: 'too expensive',
    });
    expect(creation).to.deep.include({ transition_type: 'creation', actor: null });
  });

  it('pause then resume, each recording the actor; 422 for resume while active and pause while paused', async () => {
    const s = await running();
    expectError(await post(s, 'resume'), 422, 'business_rule_error', 'INVALID_STATE_TRANSITION');
    const paused = await post(s, 'pause', { reason: 'holiday' });
    expect(paused.status, paused.text).to.equal(200);
    expect(paused.body).to.include({ status: 'paused', next_billing_at: null });
    expectError(await post(s, 'pause'), 422, 'business_rule_error', 'INVALID_STATE_TRANSITION');
    const resumed = await post(s, 'resume');
    expect(resumed.status, resumed.text).to.equal(200);
    expect(resumed.body.status).to.equal('active');
    const [resume, pause] = await transitions(s);
    expect(resume).to.deep.include({ transition_type: 'resume', triggered_by: 'admin' });
    expect(pause).to.deep.include({ transition_type: 'pause', triggered_by: 'admin', reason: 'holiday' });
    for (const t of [resume, pause]) expect(t.actor).to.include({ id: s.user.id, type: 'merchant_user' });
  });

  it('cancel now ends the subscription; every later operation is a 422; 400 without at_period_end', async () => {
    const s = await running();
    expectError(await post(s, 'cancel', {}), 400, 'validation_error');
    const res = await post(s, 'cancel', { at_period_end: false, reason: 'moved away' });
    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.include({ status: 'cancelled', cancellation_reason: 'moved away' });
    for (const [action, body] of [
      ['pause', {}],
      ['resume', {}],
      ['reactivate', {}],
      ['cancel', { at_period_end: false }],
    ] as const) {
      expect((await post(s, action, body)).status, action).to.equal(422);
    }
    const [cancellation] = await transitions(s);
    expect(cancellation).to.deep.include({ transition_type: 'cancellation', to_status: 'cancelled' });
    expect(cancellation.actor.id).to.equal(s.user.id);
  });

  it('change offer within the family records the actor; 422 OFFER_NOT_IN_FAMILY / OFFER_UNCHANGED; 400 unknown offer', async () => {
    const s = await running();
    const merchantId = s.sub.tenant.merchant_id;
    const { offer: pro } = await createOffer(merchantId, {
      familyId: s.sub.familyId,
      prices: [{ currency: 'USD', amount: 1999, isDefault: true }],
    });
    const res = await post(s, 'change-offer', { to_offer_id: pro.id });
    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.include({ current_offer_id: pro.id, current_amount: 1999 });
    const [upgrade] = await transitions(s);
    expect(upgrade).to.deep.include({ transition_type: 'upgrade', triggered_by: 'admin', to_offer_id: pro.id });
    expect(upgrade.actor).to.include({ id: s.user.id, email: s.user.email });
    const { offer: elsewhere } = await createOffer(merchantId, {
      prices: [{ currency: 'USD', amount: 500, isDefault: true }],
    });
    expectError(
      await post(s, 'change-offer', { to_offer_id: elsewhere.id }),
      422,
      'business_rule_error',
      'OFFER_NOT_IN_FAMILY',
    );
    expectError(await post(s, 'change-offer', { to_offer_id: pro.id }), 422, 'business_rule_error', 'OFFER_UNCHANGED');
    expect((await post(s, 'change-offer', { to_offer_id: 'ofr_doesnotexist' })).status).to.equal(400);
  });

  it("change payment instrument to another of the customer's cards records the actor; 400 for someone else's", async () => {
    const s = await running();
    const second = await saveCard(s.sub.tenant, s.sub.customerId, {
      number: '5555555555554444',
      cvc: '123',
      brand: 'mastercard',
    });
    const res = await post(s, 'change-payment-instrument', { payment_instrument_id: second.id });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.payment_instrument_id).to.equal(second.id);
    const [change] = await transitions(s);
    expect(change).to.deep.include({ transition_type: 'payment_method_change', triggered_by: 'admin' });
    expect(change.actor).to.include({ id: s.user.id, type: 'merchant_user' });
    const other = await subscribed(new Date());
    const refused = await post(s, 'change-payment-instrument', { payment_instrument_id: other.instrumentId });
    expectError(refused, 400, 'validation_error');
  });
});
