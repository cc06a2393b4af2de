/**
 * Capture intent survives settlement: a `capture: false` card charge the provider holds for review (pending) and
 * approves later — here told by the provider's payment.succeeded webhook — is an authorization, not a payment. It
 * settles pre_authorized with nothing captured, the provider holds it uncaptured too, and the merchant captures it
 * as any other authorization (real stack: charge and settlement workflows, sandbox provider_a and its webhook).
 */
import { expect } from 'chai';
import { api } from '../helpers/http';
import { createTenant } from '../helpers/factories';
import { expectWrapped } from '../helpers/envelope';
import { control } from '../helpers/sandbox';
import { waitForEvent } from '../helpers/transaction-events';
import { cardCharge, cardToken, cascade, charge, override, providerReferenceOf } from '../helpers/transactions';

describe('A capture:false card charge held for review and settled by the provider’s webhook', () => {
  it('capture intent survives settlement: pre_authorized with amount_captured 0 (transaction.pre_authorized), uncaptured at the provider, then captured through POST /capture', async () => {
    const tenant = await createTenant();
    const [connector] = await cascade(tenant, ['provider_a']);
    await override(connector, 'review', 1);
    const res = await charge(tenant, cardCharge(await cardToken(tenant), { capture: false }));
    expect(res.status, res.text).to.equal(201);
    expect(res.body.data).to.include({ status: 'pending', capture: false, amount_captured: 0 });
    const txId = res.body.data.id;
    const key = tenant.merchant_secret_key;

    const reference = await providerReferenceOf(tenant, txId);
    const settled = await control('POST', `/payments/${reference}/settle`, {});
    expect(settled.status, JSON.stringify(settled.body)).to.be.lessThan(300);
    const events = await waitForEvent(tenant.merchant_id, txId, 'transaction.pre_authorized');
    expect(events).to.deep.equal(['transaction.created', 'transaction.pending', 'transaction.pre_authorized']);
    const tx = (await api.get(`/transactions/${txId}`, { key })).body.data;
    expect(tx).to.include({ status: 'pre_authorized', amount_authorized: 1500, amount_captured: 0 });
    // The provider approved an authorization too: it holds the money, it did not take it.
    expect((await control('GET', `/payments/${reference}`)).body).to.include({
      state: 'authorized',
      capturedAmount: 0,
    });

    const captured = expectWrapped(await api.post(`/transactions/${txId}/capture`, { key, body: {} }), 200);
    expect(captured).to.include({ status: 'authorized', amount_authorized: 1500, amount_captured: 1500 });
    expect((await control('GET', `/payments/${reference}`)).body).to.include({
      state: 'captured',
      capturedAmount: 1500,
    });
  });
});
