/**
 * A checkout paid with a saved card is a customer-initiated payment (the buyer is there, choosing the card), not a
 * stored-card merchant-initiated charge: routing's `is_recurring` is false for it. A server charging a saved card
 * on its own (payment_instrument_id without a checkout) stays recurring, as before.
 */
import { expect } from 'chai';
import { createTenant, type Tenant } from '../helpers/factories';
import { postConnector } from '../helpers/connectors';
import { createSession } from '../helpers/checkout';
import { createOffer } from '../helpers/catalog';
import { action, addNode, condition, createProfile, profilePath } from '../helpers/routing';
import { api } from '../helpers/http';
import { charge } from '../helpers/transactions';
import { CARDS, createCustomer, saveCard } from '../helpers/vault';

/** The routing decision's attempts as [connector, why it is there] (GET /transactions/:id/routing). */
async function reasonsOf(transactionId: string, key: string): Promise<string[][]> {
  const res = await api.get(`/transactions/${transactionId}/routing`, { key });
  expect(res.status, res.text).to.equal(200);
  return res.body.data.attempts.map((a: { connector_id: string; reason: string }) => [a.connector_id, a.reason]);
}

describe('Routing: a saved-card checkout payment is customer-initiated', function () {
  this.timeout(90_000);
  let tenant: Tenant;
  let customerPresent: string;
  let merchantInitiated: string;
  let customerId: string;
  let instrumentId: string;

  before(async () => {
    tenant = await createTenant();
    customerPresent = (await postConnector(tenant, 'provider_a', { name: 'Buyer present' })).id;
    merchantInitiated = (await postConnector(tenant, 'provider_a', { name: 'Stored card' })).id;
    // is_recurring → the stored-card connector; everything else → the default.
    const profile = await createProfile(tenant, {
      payment_method: '*',
      default_merchant_connector_id: customerPresent,
    });
    const recurring = await addNode(tenant, profile.id, condition('is_recurring', 'eq', true));
    await addNode(tenant, profile.id, action(merchantInitiated, { parent_node_id: recurring.id, branch: 'then' }));
    const activated = await api.patch(profilePath(tenant.merchant_id, profile.id), {
      key: tenant.merchant_secret_key,
      body: { is_active: true },
    });
    expect(activated.status, activated.text).to.equal(200);
    customerId = await createCustomer(tenant);
    instrumentId = (await saveCard(tenant, customerId, CARDS.visa)).id;
  });

  it('routes a checkout paid with its customer’s saved card as not recurring', async () => {
    const { offer } = await createOffer(tenant.merchant_id, { billingCycle: 'none' });
    const checkout = await createSession(tenant, {
      offer_id: offer.id,
      customer_id: customerId,
      selected_currency: 'USD',
    });
    const res = await charge(tenant, {
      payment_method: 'credit_card',
      charge_type: 'payment',
      country: 'US',
      checkout_session_id: checkout.id,
      payment_instrument_id: instrumentId,
    });
    expect(res.status, res.text).to.equal(201);
    expect(res.body.data.status).to.equal('authorized');
    // The is_recurring node did not match: its connector is tried only as a fallback (routing tries every
    // connector of the tree), never chosen for a recurring charge.
    expect(await reasonsOf(res.body.data.id, tenant.merchant_secret_key)).to.deep.equal([
      [merchantInitiated, 'fallback'],
      [customerPresent, 'default'],
    ]);
  });

  it('routes a server-side charge of a saved card (no checkout) as recurring, as before', async () => {
    const res = await charge(tenant, {
      payment_method: 'credit_card',
      charge_type: 'payment',
      country: 'US',
      amount: 1500,
      currency: 'USD',
      customer_id: customerId,
      payment_instrument_id: instrumentId,
    });
    expect(res.status, res.text).to.equal(201);
    expect(res.body.data.status).to.equal('authorized');
    expect(await reasonsOf(res.body.data.id, tenant.merchant_secret_key)).to.deep.equal([
      [merchantInitiated, 'matched'],
      [customerPresent, 'default'],
    ]);
  });
});
