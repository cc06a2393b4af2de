/**
 * A recurring first charge held for review keeps its card as the customer's instrument while it is pending (a late
 * approval must still be able to renew). When the provider then fails it, no usable saved card may stay behind:
 * the instrument the charge kept is revoked, as DELETE would (real stack: charge and settlement workflows, sandbox
 * webhook).
 */
import { expect } from 'chai';
import { createSession, sellableOffer } from '../helpers/checkout';
import { createTenant } from '../helpers/factories';
import { api } from '../helpers/http';
import { cascade, charge, override, providerReferenceOf, waitForTransaction } from '../helpers/transactions';
import { control } from '../helpers/sandbox';
import { CARDS, mintToken, openSession } from '../helpers/vault';

describe('A card kept by a pending first charge that then fails', () => {
  it('is revoked when the provider fails the charge: no usable saved instrument is left behind', async () => {
    const tenant = await createTenant();
    const [connector] = await cascade(tenant, ['provider_a']);
    const { offer } = await sellableOffer(tenant);
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
    const instrumentId = (await api.get(`/transactions/${txId}`, { key })).body.data.payment_instrument_id;
    expect(instrumentId).to.match(/^pi_/);
    const instrumentPath = `/merchants/${tenant.merchant_id}/payment-instruments/${instrumentId}`;
    expect((await api.get(instrumentPath, { key })).body.data.status).to.equal('active');

    const reference = await providerReferenceOf(tenant, txId);
    const failed = await control('POST', `/payments/${reference}/fail`, {});
    expect(failed.status, JSON.stringify(failed.body)).to.be.lessThan(300);
    expect((await waitForTransaction(tenant, txId, (t) => t.status !== 'pending', 20_000)).status).to.equal('failed');

    const instrument = (await api.get(instrumentPath, { key })).body.data;
    expect(instrument.status).to.equal('revoked');
    const customerId = (await api.get(`/transactions/${txId}`, { key })).body.data.customer_id;
    const listed = await api.get(
      `/merchants/${tenant.merchant_id}/payment-instruments?${new URLSearchParams({ customer_id: customerId, status: 'active' }).toString()}`,
      { key },
    );
    expect(listed.status, listed.text).to.equal(200);
    expect(listed.body.data.map((i: { id: string }) => i.id)).to.not.include(instrumentId);
  });
});
