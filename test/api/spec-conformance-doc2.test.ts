/**
 * Document 2 (catalog and checkout), to the letter: each rule the spec-conformance audit found broken,
 * checked through HTTP against the real stack. Every assertion
 * quotes the sentence of Document 2 it checks.
 */
import { expect } from 'chai';
import { startSubscriptionWorkflow } from '../../api/temporal/subscriptions';
import { subscriptionWorkflowId } from '../../workflows/subscription.shared';
import { api } from '../helpers/http';
import { createTenant, type Tenant } from '../helpers/factories';
import { expectError, expectFieldErrors, expectWrapped } from '../helpers/envelope';
import { createFamilyViaApi, createProductViaApi, uniqueFamilySlug } from '../helpers/catalog-api';
import { HOUR, inFuture, newSession } from '../helpers/checkout';
import { stack } from '../helpers/stack';
import { subscribed, type Subscribed } from '../helpers/subscriptions';

const DAY = 86_400_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function offerOf(tenant: Tenant, productId: string) {
  const res = await api.post('/offers', {
    key: tenant.merchant_secret_key,
    body: {
      product_id: productId,
      name: 'Monthly',
      slug: uniqueFamilySlug('monthly'),
      billing_cycle: 'monthly',
      status: 'active',
      is_default: true,
      prices: [{ currency: 'BRL', amount: 4990, is_default: true }],
    },
  });
  return expectWrapped(res, 201) as { id: string; prices: Array<{ id: string }> };
}

/**
 * A daily subscription whose renewal falls due a few seconds from now, `change` applied to its catalog before its
 * workflow starts: the subscription as the API shows it once it renewed, or after a minute.
 */
async function renewalAfter(change: (sub: Subscribed, key: string) => Promise<void>) {
  const sub = await subscribed(new Date(Date.now() - DAY + 3_000), { billingCycle: 'daily' });
  const key = sub.tenant.merchant_secret_key;
  const path = `/merchants/${sub.tenant.merchant_id}/subscriptions/${sub.state.subscriptionId}`;
  await change(sub, key);
  const client = stack().api.deps.temporal.client;
  await startSubscriptionWorkflow(client, sub.state);
  try {
    // Polled once a second for at most a minute (the key's rate limit is 100 requests a minute).
    let current = expectWrapped(await api.get(path, { key }), 200);
    for (let i = 0; i < 60 && current.cycles_completed < 2; i += 1) {
      await sleep(1_000);
      current = expectWrapped(await api.get(path, { key }), 200);
    }
    return current;
  } finally {
    await client.workflow.getHandle(subscriptionWorkflowId(sub.state.subscriptionId)).terminate();
  }
}

describe('Document 2 conformance — products', () => {
  it('product DELETE soft-deletes the product alone: its offers and prices stay readable', async () => {
    const tenant = await createTenant();
    const key = tenant.merchant_secret_key;
    const product = await createProductViaApi(tenant);
    const offer = await offerOf(tenant, product.id);
    expect((await api.delete(`/products/${product.id}`, { key })).status).to.equal(204);

    // "live | DELETE /products/:id | soft-deleted (hidden from lists, record kept)"
    expectError(await api.get(`/products/${product.id}`, { key }), 404);
    const products = expectWrapped(await api.get('/products', { key }), 200, { list: true });
    expect(products.map((p: { id: string }) => p.id)).to.not.include(product.id);
    // "Offers soft-delete on DELETE, cascading to their prices" — only an offer's own DELETE cascades; the
    // product's DELETE leaves its offers and their prices as they were.
    const kept = expectWrapped(await api.get(`/offers/${offer.id}`, { key }), 200);
    expect(kept).to.include({ id: offer.id, status: 'active' });
    expect(kept).to.not.have.property('deleted_at');
    expectWrapped(await api.get(`/offer-prices/${offer.prices[0].id}`, { key }), 200);
    const listed = expectWrapped(await api.get('/offers', { key, query: { product_id: product.id } }), 200, {
      list: true,
    });
    expect(listed.map((o: { id: string }) => o.id)).to.deep.equal([offer.id]);
    // "soft-deleted | POST /products/:id/restore | live with previous attributes"
    expectWrapped(await api.post(`/products/${product.id}/restore`, { key }), 201);
    expectWrapped(await api.get(`/offers/${offer.id}`, { key }), 200);
  });

  it('product DELETE does not stop renewals: a subscription of its offer renews at its due date', async function () {
    this.timeout(3 * 60 * 1000);
    const current = await renewalAfter(async (sub, key) => {
      expect((await api.delete(`/products/${sub.state.productId}`, { key })).status).to.equal(204);
    });
    // "live | DELETE /products/:id | soft-deleted (hidden from lists, record kept)" — a soft-deleted product is
    // hidden, its subscribers are not cancelled or held: the renewal ("active | Renewal succeeds") happens.
    expect(current).to.include({ status: 'active', cycles_completed: 2 });
  });

  it('an archived offer keeps its subscribers renewing; only new sign-ups stop (decision: archived offers)', async function () {
    this.timeout(3 * 60 * 1000);
    const current = await renewalAfter(async (sub, key) => {
      const archived = await api.patch(`/offers/${sub.offerId}`, { key, body: { status: 'archived' } });
      expect(archived.status, archived.text).to.equal(200);
    });
    // "a renewal is charged only when … the offer is still available": archived means no new sign-ups
    // (docs/api-decisions.md, "Archived offers and renewals"); the subscriber is not held.
    expect(current).to.include({ status: 'active', cycles_completed: 2 });
  });
});

describe('Document 2 conformance — product families', () => {
  it('a duplicate custom_plan_id is 409 PRODUCT_FAMILY_SLUG_TAKEN on create, update and restore', async () => {
    const tenant = await createTenant();
    const key = tenant.merchant_secret_key;
    const holder = await createFamilyViaApi(tenant, { custom_plan_id: 'plan-gold' });

    const created = await api.post('/product-families', {
      key,
      body: { name: 'Other', slug: uniqueFamilySlug(), custom_plan_id: 'plan-gold' },
    });
    // "409 PRODUCT_FAMILY_SLUG_TAKEN (conflict_error) on duplicate slug or custom_plan_id among active families"
    const error = expectError(created, 409, 'conflict_error', 'PRODUCT_FAMILY_SLUG_TAKEN');
    expect(error.details).to.deep.equal({ custom_plan_id: 'plan-gold', existing_product_family_id: holder.id });

    const mover = await createFamilyViaApi(tenant);
    const patched = await api.patch(`/product-families/${mover.id}`, { key, body: { custom_plan_id: 'plan-gold' } });
    // "PATCH /product-families/:id … 409 on slug or custom_plan_id collision with another active family"
    expectError(patched, 409, 'conflict_error', 'PRODUCT_FAMILY_SLUG_TAKEN');

    const gone = await createFamilyViaApi(tenant, { custom_plan_id: 'plan-silver' });
    expect((await api.delete(`/product-families/${gone.id}`, { key })).status).to.equal(204);
    await createFamilyViaApi(tenant, { custom_plan_id: 'plan-silver' });
    // "Family slug or custom_plan_id taken (create, update, restore) | 409 | conflict_error / PRODUCT_FAMILY_SLUG_TAKEN"
    expectError(
      await api.post(`/product-families/${gone.id}/restore`, { key }),
      409,
      'conflict_error',
      'PRODUCT_FAMILY_SLUG_TAKEN',
    );
  });
});

describe('Document 2 conformance — checkout sessions', () => {
  it('PATCH expires_at is pushed out only, and must be in the future', async () => {
    const tenant = await createTenant();
    const { session } = await newSession(tenant, { expires_at: inFuture(2 * HOUR) });
    const patch = (body: Record<string, unknown>) =>
      api.patch(`/checkout-sessions/${session.id}`, { key: tenant.merchant_secret_key, body });

    // "expires_at (pushed out, must be in the future)": an earlier expiry is not a push out.
    expectFieldErrors(await patch({ expires_at: inFuture(HOUR) }), ['expires_at']);
    // "expires_at (pushed out, must be in the future)": a past expiry is refused.
    expectFieldErrors(await patch({ expires_at: inFuture(-HOUR) }), ['expires_at']);
    const later = inFuture(3 * HOUR);
    // "expires_at (pushed out, must be in the future)": a later one is taken.
    expect(expectWrapped(await patch({ expires_at: later }), 200).expires_at).to.equal(later);
  });
});
