/**
 * Document 3 (payments and subscriptions), to the letter: each rule the spec-conformance audit found broken,
 * checked through HTTP against the real stack (the subscription's
 * own workflow on the dev server applies each operation). Every assertion quotes the sentence of Document 3 it
 * checks.
 */
import { expect } from 'chai';
import { startSubscriptionWorkflow } from '../../api/temporal/subscriptions';
import { subscriptionWorkflowId, viewQuery } from '../../workflows/subscription.shared';
import { createOffer } from '../helpers/catalog';
import { api } from '../helpers/http';
import { expectError, expectWrapped } from '../helpers/envelope';
import { createTenant } from '../helpers/factories';
import { stack } from '../helpers/stack';
import { renewalCharges, subscribed, type Subscribed } from '../helpers/subscriptions';
import { connectorBody } from '../helpers/connectors';

const base = (s: Subscribed) => `/merchants/${s.tenant.merchant_id}/subscriptions/${s.state.subscriptionId}`;
const post = (s: Subscribed, action: string, body: Record<string, unknown> = {}) =>
  api.post(`${base(s)}/${action}`, { key: s.tenant.merchant_secret_key, body });
const transitions = (s: Subscribed, query: Record<string, number> = {}) =>
  api.get(`${base(s)}/transitions`, { key: s.tenant.merchant_secret_key, query });

describe('Document 3 conformance — subscription transitions', () => {
  const started: Subscribed[] = [];
  async function running(): Promise<Subscribed> {
    const sub = await subscribed(new Date());
    await startSubscriptionWorkflow(stack().api.deps.temporal.client, sub.state);
    started.push(sub);
    return sub;
  }
  after(async () => {
    const client = stack().api.deps.temporal.client;
    for (const sub of started)
      await client.workflow
        .getHandle(subscriptionWorkflowId(sub.state.subscriptionId))
        .terminate()
        .catch(() => undefined);
  });

  it('the transitions list takes page and limit', async () => {
    const sub = await running();
    expectWrapped(await post(sub, 'pause'), 200);
    expectWrapped(await post(sub, 'resume'), 200);
    const first = await transitions(sub, { page: 1, limit: 2 });
    // "page | integer, minimum 1, default 1 | All lists" — and limit, with "meta.pagination in wrapped responses".
    const page = expectWrapped(first, 200, { list: true });
    expect(page.map((t: { transition_type: string }) => t.transition_type)).to.deep.equal(['resume', 'pause']);
    expect(first.body.meta.pagination).to.include({ page: 1, limit: 2, total: 3, has_next: true, has_prev: false });
    const second = expectWrapped(await transitions(sub, { page: 2, limit: 2 }), 200, { list: true });
    // "The list is append-only and newest first."
    expect(second.map((t: { transition_type: string }) => t.transition_type)).to.deep.equal(['creation']);
  });

  it('a scheduled cancellation records to_offer_id null', async () => {
    const sub = await running();
    expectWrapped(await post(sub, 'cancel', { at_period_end: true }), 200);
    const [cancellation] = expectWrapped(await transitions(sub), 200, { list: true });
    expect(cancellation.transition_type).to.equal('cancellation');
    // "to_offer_id (null on cancellation)"
    expect(cancellation.to_offer_id).to.equal(null);
    // "from_offer_id (null on creation)" — so on a cancellation it is the offer being left.
    expect(cancellation.from_offer_id).to.equal(sub.offerId);
  });

  it('an admin-triggered move (API key) carries the actor snapshot', async () => {
    const sub = await running();
    expectWrapped(await post(sub, 'pause', { reason: 'holiday' }), 200);
    const [pause] = expectWrapped(await transitions(sub), 200, { list: true });
    // "triggered_by (customer, system, admin)" — the merchant's own call is admin-triggered …
    expect(pause.triggered_by).to.equal('admin');
    // … "actor (for admin-triggered: snapshot {id, type, name, email} …; otherwise null)"
    expect(pause.actor).to.be.an('object').that.has.all.keys(['id', 'type', 'name', 'email']);
    expect(pause.actor).to.include({ type: 'api_key', email: null });
    expect(pause.actor.id).to.match(/^ak_/);
    // "otherwise null": a system move (creation) has no actor.
    const all = expectWrapped(await transitions(sub), 200, { list: true });
    expect(all.find((t: { transition_type: string }) => t.transition_type === 'creation').actor).to.equal(null);
  });

  it('a change to an offer of equal value is not recorded as a downgrade', async () => {
    const sub = await running();
    const { offer: same } = await createOffer(sub.tenant.merchant_id, {
      familyId: sub.familyId,
      prices: [{ currency: 'USD', amount: 999, isDefault: true }],
    });
    expectWrapped(await post(sub, 'change-offer', { to_offer_id: same.id }), 200);
    const [change] = expectWrapped(await transitions(sub), 200, { list: true });
    // "subscription.downgraded | Moved to a lower-value offer" (Document 1): an equal-value offer is not lower;
    // "transition upgrade or downgrade recorded" (Document 3) leaves upgrade.
    expect(change).to.include({ transition_type: 'upgrade', to_offer_id: same.id });
    const events = await api.get('/events', {
      key: sub.tenant.merchant_secret_key,
      query: { type: 'subscription.downgraded' },
    });
    expect(expectWrapped(events, 200, { list: true })).to.deep.equal([]);
  });
});

describe('Document 3 conformance — not-found codes', () => {
  it('a malformed order id is 404 ORDER_NOT_FOUND, a malformed instrument id 404 PAYMENT_INSTRUMENT_NOT_FOUND', async () => {
    const tenant = await createTenant();
    const key = tenant.merchant_secret_key;
    // "404 not_found_error ORDER_NOT_FOUND when absent or not the resolved merchant's" — also for a malformed id.
    expectError(await api.get('/orders/ord_doesnotexist000', { key }), 404, 'not_found_error', 'ORDER_NOT_FOUND');
    expectError(await api.get('/orders/abc', { key }), 404, 'not_found_error', 'ORDER_NOT_FOUND');
    const instruments = `/merchants/${tenant.merchant_id}/payment-instruments`;
    // "Payment instrument not found | 404 | not_found_error, code PAYMENT_INSTRUMENT_NOT_FOUND" — malformed ids too.
    for (const id of ['pi_doesnotexist000', 'not-an-id']) {
      expectError(
        await api.delete(`${instruments}/${id}`, { key }),
        404,
        'not_found_error',
        'PAYMENT_INSTRUMENT_NOT_FOUND',
      );
      expectError(
        await api.patch(`${instruments}/${id}`, { key, body: { status: 'revoked' } }),
        404,
        'not_found_error',
        'PAYMENT_INSTRUMENT_NOT_FOUND',
      );
    }
  });
});

describe('Document 3 conformance — transaction create', () => {
  it('a keyless POST /transactions is 400 IDEMPOTENCY_KEY_REQUIRED, whatever else is wrong with it', async () => {
    const tenant = await createTenant();
    const key = tenant.merchant_secret_key;
    for (const body of [
      { payment_method: 'pix', charge_type: 'payment', country: 'BR', amount: 1000, currency: 'BRL' },
      { payment_method: 'pix', amount: -5, surprise: true },
      {},
    ]) {
      // "The key is required on POST /transactions: omitting it gives 400 validation_error with code
      // IDEMPOTENCY_KEY_REQUIRED" (Document 1, Idempotency rule 4).
      expectError(await api.post('/transactions', { key, body }), 400, 'validation_error', 'IDEMPOTENCY_KEY_REQUIRED');
    }
    // With a key, the same broken body gets its own field errors: the check above is about the key only.
    const keyed = await api.post('/transactions', {
      key,
      body: { payment_method: 'pix', amount: -5, surprise: true },
      headers: { 'Idempotency-Key': 'conformance-keyed-1' },
    });
    expect(expectError(keyed, 400, 'validation_error').code).to.not.equal('IDEMPOTENCY_KEY_REQUIRED');
  });
});

describe('Document 3 conformance — billing holds', () => {
  it('a new connector ends a hold for want of an active connector: the held renewal is tried within the minute, not the next day', async function () {
    this.timeout(4 * 60 * 1000);
    const DAY = 24 * 60 * 60_000;
    // A daily subscription due a few seconds from now, on a merchant whose only connector was deactivated.
    const sub = await subscribed(new Date(Date.now() - DAY + 3_000), { billingCycle: 'daily' });
    const key = sub.tenant.merchant_secret_key;
    const connectors = `/merchants/${sub.tenant.merchant_id}/connectors`;
    const off = await api.patch(`${connectors}/${sub.connector.id}`, { key, body: { is_active: false } });
    expect(off.status, off.text).to.equal(200);
    const client = stack().api.deps.temporal.client;
    await startSubscriptionWorkflow(client, sub.state);
    const path = `/merchants/${sub.tenant.merchant_id}/subscriptions/${sub.state.subscriptionId}`;
    try {
      // Held: due, nothing charged (the workflow re-checks a hold daily unless told).
      const handle = client.workflow.getHandle(subscriptionWorkflowId(sub.state.subscriptionId));
      const renewals = async () => (await renewalCharges(sub)).length;
      let held = false;
      for (let i = 0; i < 60 && !held; i += 1) {
        held = Boolean((await handle.query(viewQuery)).state.holdCheckAt);
        if (!held) await new Promise((resolve) => setTimeout(resolve, 500));
      }
      expect(held, 'the due renewal is held').to.equal(true);
      expect(await renewals(), 'nothing is charged while held').to.equal(0);
      // "Billing holds … resume once [an active connector is] in place": a new connector is one.
      const created = await api.post(connectors, { key, body: connectorBody('provider_a', { name: 'Replacement' }) });
      expect(created.status, created.text).to.equal(201);
      let tried = 0;
      for (let i = 0; i < 150 && tried === 0; i += 1) {
        await new Promise((resolve) => setTimeout(resolve, 1_000));
        tried = await renewals();
      }
      expect(tried, 'the held renewal is tried once a connector is in place').to.equal(1);
      expect(expectWrapped(await api.get(path, { key }), 200).status).to.be.oneOf(['active', 'dunning']);
    } finally {
      await client.workflow.getHandle(subscriptionWorkflowId(sub.state.subscriptionId)).terminate();
    }
  });
});
