/**
 * A duplicate plan's loser is given back: when two first charges of one plan by one customer race, the one that
 * gets no subscription is voided when it only holds an authorization (capture: false), as the captured one is
 * refunded (test/api/subscriptions-creation.test.ts) — never kept without a subscription. Real stack: charge
 * workflows, the give-back operation workflow, sandbox provider_a.
 */
import { expect } from 'chai';
import { createSession, sellableOffer } from '../helpers/checkout';
import { createTenant, type Tenant } from '../helpers/factories';
import { api } from '../helpers/http';
import { control } from '../helpers/sandbox';
import { cascade, charge, override, providerReferenceOf, waitForTransaction } from '../helpers/transactions';
import { CARDS, createCustomer, mintToken, openSession } from '../helpers/vault';

async function payCheckoutUncaptured(tenant: Tenant, body: Record<string, unknown>) {
  const checkout = await createSession(tenant, { selected_currency: 'USD', ...body });
  const browser = await openSession(tenant, { checkoutSessionId: checkout.id });
  await mintToken(tenant, browser, CARDS.visa, {});
  return charge(tenant, {
    payment_method: 'credit_card',
    charge_type: 'payment',
    country: 'US',
    checkout_session_id: checkout.id,
    capture: false,
  });
}

describe('Two capture:false first charges for one plan paid at once', () => {
  it('a duplicate plan’s loser is given back: the pre_authorized loser is voided (at the provider too), the winner keeps the one subscription', async () => {
    const tenant = await createTenant();
    const [connector] = await cascade(tenant, ['provider_a']);
    const { offer } = await sellableOffer(tenant);
    const customerId = await createCustomer(tenant);
    // Both charges are at the provider together: both pass the check made before charging.
    await override(connector, 'slow', 2);
    const paid = await Promise.all([
      payCheckoutUncaptured(tenant, { offer_id: offer.id, customer_id: customerId }),
      payCheckoutUncaptured(tenant, { offer_id: offer.id, customer_id: customerId }),
    ]);
    const charged = paid.filter((res) => res.status === 201).map((res) => res.body.data.id);
    expect(charged, 'both charges were made').to.have.length(2);
    const final = await Promise.all(
      charged.map((id) =>
        waitForTransaction(tenant, id, (tx) => tx.subscription_id !== null || tx.status === 'voided', 30_000),
      ),
    );
    expect(final.map((tx) => tx.status).sort()).to.deep.equal(['pre_authorized', 'voided']);
    const key = tenant.merchant_secret_key;
    const subs = (await api.get(`/merchants/${tenant.merchant_id}/subscriptions?customer_id=${customerId}`, { key }))
      .body.data;
    expect(subs).to.have.length(1);
    expect(final.find((tx) => tx.status === 'pre_authorized').subscription_id).to.equal(subs[0].id);
    const loser = final.find((tx) => tx.status === 'voided');
    expect(loser).to.include({ subscription_id: null, amount_captured: 0 });
    const payment = (await control('GET', `/payments/${await providerReferenceOf(tenant, loser.id)}`)).body;
    expect(payment.state).to.equal('voided');
  });
});
