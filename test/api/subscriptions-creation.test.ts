/**
 * The billing engine creates a subscription when the first charge of a recurring offer succeeds: a checkout
 * session paid by card through POST /transactions (real stack: charge workflow, sandbox PSP, subscription child).
 */
import { expect } from 'chai';
import { createSession, sellableOffer } from '../helpers/checkout';
import { createTenant, type Tenant } from '../helpers/factories';
import { api } from '../helpers/http';
import { stack } from '../helpers/stack';
import { cascade, charge, override, waitForTransaction } from '../helpers/transactions';
import { CARDS, createCustomer, mintToken, openSession } from '../helpers/vault';
import { subscriptionEvents } from '../helpers/subscriptions';
import { subscriptionWorkflowId } from '../../workflows/subscription.shared';
import { OfferPriceSchema, PaymentInstrumentSchema, SubscriptionSchema, TransactionSchema } from '../../db/entities';
import { accountOf, ledger } from '../helpers/sandbox';

async function payCheckout(tenant: Tenant, body: Record<string, unknown>) {
  const checkout = await createSession(tenant, { selected_currency: 'USD', ...body });
  const browser = await openSession(tenant, { checkoutSessionId: checkout.id });
  await mintToken(tenant, browser, CARDS.visa, {});
  const res = await charge(tenant, {
    payment_method: 'credit_card',
    charge_type: 'payment',
    country: 'US',
    checkout_session_id: checkout.id,
  });
  return { checkout, res };
}

describe('Subscription creation on a paid recurring first charge', () => {
  it('writes the subscription once: saved card, creation transition, subscription.created, subscription_id, running workflow', async () => {
    const tenant = await createTenant();
    await cascade(tenant, ['provider_a']);
    const { offer } = await sellableOffer(tenant); // monthly, USD 999
    const { checkout, res } = await payCheckout(tenant, { offer_id: offer.id });
    expect(res.status, res.text).to.equal(201);
    expect(res.body.data.status).to.equal('authorized');
    const txId = res.body.data.id;
    const key = tenant.merchant_secret_key;
    const tx = (await api.get(`/transactions/${txId}`, { key })).body.data;
    expect(tx.subscription_id).to.match(/^sub_/);
    expect(tx.payment_instrument_id).to.match(/^pi_/);
    const sub = (await api.get(`/merchants/${tenant.merchant_id}/subscriptions/${tx.subscription_id}`, { key })).body
      .data;
    expect(sub).to.include({
      status: 'active',
      current_offer_id: offer.id,
      customer_id: checkout.customer_id,
      payment_instrument_id: tx.payment_instrument_id,
      current_amount: 999,
      cycles_completed: 1,
      billing_cycle: 'monthly',
    });
    const transitions = (await api.get(`/merchants/${tenant.merchant_id}/subscriptions/${sub.id}/transitions`, { key }))
      .body.data;
    expect(transitions.map((t: any) => [t.transition_type, t.order_id])).to.deep.equal([['creation', tx.order_id]]);
    expect((await subscriptionEvents(tenant.merchant_id)).map(([type]) => type)).to.deep.equal([
      'subscription.created',
    ]);
    const description = await stack()
      .api.deps.temporal.client.workflow.getHandle(subscriptionWorkflowId(sub.id))
      .describe();
    expect(description.status.name).to.equal('RUNNING');
    // The first charge's network transaction id is kept on both, for merchant-initiated renewals.
    const em = stack().orm.em.fork();
    const row = await em.findOneOrFail(SubscriptionSchema, { id: sub.id });
    const card = await em.findOneOrFail(PaymentInstrumentSchema, { id: tx.payment_instrument_id });
    expect(row.initialNetworkTransactionId).to.match(/^\d+$/);
    expect(card.networkTransactionId).to.equal(row.initialNetworkTransactionId);
  });

  it('bills what was sold: 3 seats at the price the buyer was shown make a subscription of 3 × that price, whatever the price row says later', async () => {
    const tenant = await createTenant();
    await cascade(tenant, ['provider_a']);
    const { offer } = await sellableOffer(tenant); // monthly, USD 999
    const checkout = await createSession(tenant, {
      selected_currency: 'USD',
      offer_id: offer.id,
      items: [{ offer_id: offer.id, quantity: 3 }],
    });
    // The merchant edits the price after the buyer saw the checkout: the snapshot is what was sold.
    await stack().orm.em.fork().nativeUpdate(OfferPriceSchema, { offerId: offer.id }, { amount: 5000 });
    const browser = await openSession(tenant, { checkoutSessionId: checkout.id });
    await mintToken(tenant, browser, CARDS.visa, {});
    const res = await charge(tenant, {
      payment_method: 'credit_card',
      charge_type: 'payment',
      country: 'US',
      checkout_session_id: checkout.id,
    });
    expect(res.status, res.text).to.equal(201);
    expect(res.body.data).to.include({ status: 'authorized', amount_authorized: 2997 });
    const key = tenant.merchant_secret_key;
    const tx = (await api.get(`/transactions/${res.body.data.id}`, { key })).body.data;
    const sub = (await api.get(`/merchants/${tenant.merchant_id}/subscriptions/${tx.subscription_id}`, { key })).body
      .data;
    expect(sub.current_amount).to.equal(2997);
    const row = await stack().orm.em.fork().findOneOrFail(SubscriptionSchema, { id: sub.id });
    expect(row.quantity).to.equal(3);
  });

  it('a checkout with two recurring offers is refused before any charge: 422 CHECKOUT_MULTIPLE_RECURRING_ITEMS, nothing charged', async () => {
    const tenant = await createTenant();
    const [connector] = await cascade(tenant, ['provider_a']);
    const { offer } = await sellableOffer(tenant);
    const { offer: second } = await sellableOffer(tenant);
    const { checkout, res } = await payCheckout(tenant, {
      offer_id: offer.id,
      items: [{ offer_id: offer.id }, { offer_id: second.id }],
    });
    expect(res.status, res.text).to.equal(422);
    expect(res.body.error).to.include({ type: 'business_rule_error', code: 'CHECKOUT_MULTIPLE_RECURRING_ITEMS' });
    const em = stack().orm.em.fork();
    expect(await em.count(TransactionSchema, { checkoutSessionId: checkout.id })).to.equal(0);
    const account = await accountOf('provider_a', connector.credentials);
    expect(await ledger({ provider: 'provider_a', account })).to.deep.equal([]);
  });

  it('two checkouts for one plan paid at once by one customer: one subscription, the other charge refunded in full (never kept without a subscription)', async () => {
    const tenant = await createTenant();
    const [connector] = await cascade(tenant, ['provider_a']);
    const { offer } = await sellableOffer(tenant);
    const customerId = await createCustomer(tenant);
    // Both charges are at the provider together: both pass the check made before charging.
    await override(connector, 'slow', 2);
    const paid = await Promise.all([
      payCheckout(tenant, { offer_id: offer.id, customer_id: customerId }),
      payCheckout(tenant, { offer_id: offer.id, customer_id: customerId }),
    ]);
    const charged = paid.filter(({ res }) => res.status === 201).map(({ res }) => res.body.data.id);
    expect(charged, 'both charges were made').to.have.length(2);
    const key = tenant.merchant_secret_key;
    const final = await Promise.all(
      charged.map((id) =>
        waitForTransaction(tenant, id, (tx) => tx.subscription_id !== null || tx.status === 'refunded', 30_000),
      ),
    );
    expect(final.map((tx) => tx.status).sort()).to.deep.equal(['authorized', 'refunded']);
    const subs = (await api.get(`/merchants/${tenant.merchant_id}/subscriptions?customer_id=${customerId}`, { key }))
      .body.data;
    expect(subs).to.have.length(1);
    expect(final.find((tx) => tx.status === 'authorized').subscription_id).to.equal(subs[0].id);
  });

  it('a free-trial offer: zero-amount card validation, order trial_setup, status trialing with trial_end', async () => {
    const tenant = await createTenant();
    await cascade(tenant, ['provider_a']);
    const { offer } = await sellableOffer(tenant, { freeTrial: true, trialDays: 14 });
    const { res } = await payCheckout(tenant, { offer_id: offer.id });
    expect(res.status, res.text).to.equal(201);
    expect(res.body.data).to.include({ status: 'authorized', charge_type: 'setup_verification', amount_authorized: 0 });
    const key = tenant.merchant_secret_key;
    const tx = (await api.get(`/transactions/${res.body.data.id}`, { key })).body.data;
    const order = (await api.get(`/orders/${tx.order_id}`, { key })).body.data;
    expect(order).to.include({ order_type: 'trial_setup', recurrence: 'initial', total_amount: 0 });
    const sub = (await api.get(`/merchants/${tenant.merchant_id}/subscriptions/${tx.subscription_id}`, { key })).body
      .data;
    expect(sub).to.include({ status: 'trialing', cycles_completed: 0, current_amount: 999 });
    expect(Date.parse(sub.trial_end) - Date.parse(sub.trial_start)).to.equal(14 * 86_400_000);
    expect(sub.next_billing_at).to.equal(sub.trial_end);
    const transitions = (await api.get(`/merchants/${tenant.merchant_id}/subscriptions/${sub.id}/transitions`, { key }))
      .body.data;
    expect(transitions.map((t: any) => t.transition_type)).to.deep.equal(['trial_start', 'creation']);
  });

  it('refuses a second live subscription to the same plan before charging: 409 conflict_error pointing to it', async () => {
    const tenant = await createTenant();
    await cascade(tenant, ['provider_a']);
    const { offer } = await sellableOffer(tenant);
    const first = await payCheckout(tenant, { offer_id: offer.id });
    const txId = first.res.body.data.id;
    const tx = (await api.get(`/transactions/${txId}`, { key: tenant.merchant_secret_key })).body.data;
    const second = await payCheckout(tenant, { offer_id: offer.id, customer_id: first.checkout.customer_id });
    expect(second.res.status, second.res.text).to.equal(409);
    expect(second.res.body.error).to.include({ type: 'conflict_error', code: 'SUBSCRIPTION_ALREADY_EXISTS' });
    expect(second.res.body.error.details).to.include({ subscription_id: tx.subscription_id });
  });
});
