/** Test-clock fixtures through the HTTP API: a clock, a customer on it paying a checkout, advancing and waiting. */
import { expect } from 'chai';
import { api } from './http';
import { customerInput, type Tenant } from './factories';
import { createSession } from './checkout';
import { charge } from './transactions';
import { CARDS, mintToken, openSession, type CardInput } from './vault';

export async function createClock(tenant: Tenant, frozenTime: string): Promise<any> {
  const res = await api.post('/test-clocks', {
    key: tenant.merchant_secret_key,
    body: { frozen_time: frozenTime, name: 'Billing QA' },
  });
  expect(res.status, res.text).to.equal(201);
  return res.body.data;
}

/**
 * A customer on the clock (the checkout's inline customer) pays the offer's first charge: the subscription. A null
 * clock makes a customer in real time.
 */
export async function subscribeOnClock(
  tenant: Tenant,
  clockId: string | null,
  offerId: string,
  options: { quantity?: number; card?: CardInput & { brand?: string } } = {},
): Promise<{ sub: any; customerId: string; firstCharge: any }> {
  const key = tenant.merchant_secret_key;
  const checkout = await createSession(tenant, {
    selected_currency: 'USD',
    offer_id: offerId,
    customer: customerInput(clockId ? { test_clock_id: clockId } : {}),
    ...(options.quantity ? { items: [{ offer_id: offerId, quantity: options.quantity }] } : {}),
  });
  const browser = await openSession(tenant, { checkoutSessionId: checkout.id });
  await mintToken(tenant, browser, options.card ?? CARDS.visa, {});
  const res = await charge(tenant, {
    payment_method: 'credit_card',
    charge_type: 'payment',
    country: 'US',
    checkout_session_id: checkout.id,
  });
  expect(res.status, res.text).to.equal(201);
  const tx = (await api.get(`/transactions/${res.body.data.id}`, { key })).body.data;
  expect(tx.subscription_id, JSON.stringify(tx)).to.match(/^sub_/);
  return { sub: await subscriptionOf(tenant, tx.subscription_id), customerId: checkout.customer_id!, firstCharge: tx };
}

export async function subscriptionOf(tenant: Tenant, id: string): Promise<any> {
  const res = await api.get(`/merchants/${tenant.merchant_id}/subscriptions/${id}`, {
    key: tenant.merchant_secret_key,
  });
  expect(res.status, res.text).to.equal(200);
  return res.body.data;
}

/** POST …/advance (200, advancing), then polls GET until the clock is ready again. */
export async function advance(tenant: Tenant, clockId: string, frozenTime: string, timeoutMs = 120_000) {
  const key = tenant.merchant_secret_key;
  const res = await api.post(`/test-clocks/${clockId}/advance`, { key, body: { frozen_time: frozenTime } });
  expect(res.status, res.text).to.equal(200);
  expect(res.body.data).to.include({ status: 'advancing', frozen_time: frozenTime });
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const read = await api.get(`/test-clocks/${clockId}`, { key });
    // A long advance outlasts the key's rate limit (100 requests a minute): wait as told, then look again.
    const wait = read.status === 429 ? Number(read.headers.get('retry-after') ?? 1) * 1000 : 250;
    if (read.status !== 429) {
      expect(read.status, read.text).to.equal(200);
      if (read.body.data.status === 'ready') return read.body.data;
    }
    if (Date.now() > deadline) throw new Error(`clock ${clockId} still advancing to ${frozenTime}`);
    await new Promise((resolve) => setTimeout(resolve, wait));
  }
}

/** The customer's charges through GET /transactions, oldest first. */
export async function chargesOf(tenant: Tenant, customerId: string): Promise<any[]> {
  const res = await api.get(`/transactions?customer_reference=${customerId}&limit=100`, {
    key: tenant.merchant_secret_key,
  });
  expect(res.status, res.text).to.equal(200);
  return [...res.body.data].sort((a, b) => Date.parse(a.created_at) - Date.parse(b.created_at));
}
