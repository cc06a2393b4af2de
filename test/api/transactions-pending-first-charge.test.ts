/**
 * A recurring first charge the provider holds for review (pending) and approves later gets what an immediate
 * approval gets: the card kept as the customer's instrument while the token still holds it, and, once settled,
 * the subscription with its workflow (real stack: charge and settlement workflows, sandbox webhook).
 */
import { expect } from 'chai';
import { createSession, sellableOffer } from '../helpers/checkout';
import { createTenant } from '../helpers/factories';
import { api } from '../helpers/http';
import { stack } from '../helpers/stack';
import { cascade, charge, override, providerReferenceOf, waitForTransaction } from '../helpers/transactions';
import { control } from '../helpers/sandbox';
import { CARDS, mintToken, openSession } from '../helpers/vault';
import { subscriptionEvents } from '../helpers/subscriptions';
import { subscriptionWorkflowId } from '../../workflows/subscription.shared';

describe('A recurring first charge that settles after going pending', () => {
  it('keeps the card when it goes pending and starts the subscription when it settles authorized', async () => {
    const tenant = await createTenant();
    const [connector] = await cascade(tenant, ['provider_a']);
    const { offer } = await sellableOffer(tenant); // monthly, USD 999
    const checkout = await createSession(tenant, { selected_currency: 'USD', offer_id: offer.id });
    const browser = await openSession(tenant, { checkoutSessionId: checkout.id });
    await mintToken(tenant, browser, CARDS.visa, {});
    await override(connector, 'review', 1);
    const res = await charge(tenant, {
      payment_method: 'credit_card',
      charge_type: 'payment',
      country: 'US',
      checkout_session_id: checkout.id,
    });
    expect(res.status, res.text).to.equal(201);
    expect(res.body.data.status).to.equal('pending');
    const txId = res.body.data.id;
    const key = tenant.merchant_secret_key;
    // Kept while the single-use token still holds the card: a late approval can still renew.
    expect((await api.get(`/transactions/${txId}`, { key })).body.data.payment_instrument_id).to.match(/^pi_/);
    expect(await subscriptionEvents(tenant.merchant_id)).to.deep.equal([]);

    const reference = await providerReferenceOf(tenant, txId);
    const settled = await control('POST', `/payments/${reference}/settle`, {});
    expect(settled.status, JSON.stringify(settled.body)).to.be.lessThan(300);
    const tx = await waitForTransaction(tenant, txId, (t) => t.status === 'authorized' && t.subscription_id, 20_000);
    expect(tx.status).to.equal('authorized');
    expect(tx.subscription_id).to.match(/^sub_/);
    const sub = (await api.get(`/merchants/${tenant.merchant_id}/subscriptions/${tx.subscription_id}`, { key })).body
      .data;
    expect(sub).to.include({ status: 'active', payment_instrument_id: tx.payment_instrument_id, cycles_completed: 1 });
    expect((await subscriptionEvents(tenant.merchant_id)).map(([type]) => type)).to.deep.equal([
      'subscription.created',
    ]);
    // The subscription row is written just before the settlement workflow starts its workflow: wait for the start.
    const handle = stack().api.deps.temporal.client.workflow.getHandle(subscriptionWorkflowId(sub.id));
    let status: string | undefined;
    for (let i = 0; i < 50 && status === undefined; i += 1) {
      status = await handle.describe().then(
        (d) => d.status.name,
        () => undefined,
      );
      if (status === undefined) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(status).to.equal('RUNNING');
  });
});
