/**
 * Capture intent survives settlement: a `capture: false` card charge the provider holds for review (pending) and
 * approves later — here told by the provider's payment.succeeded webhook — is an authorization, not a payment. It
 * settles pre_authorized with nothing captured, the provider holds it uncaptured too, and the merchant captures it
 * as any other authorization (real stack: charge and settlement workflows, sandbox provider_a and its webhook).
 * Stripe announces that approval with `payment_intent.amount_capturable_updated` (the intent requires_capture), never
 * `payment_intent.succeeded`, and the sandbox sends it as Stripe does: the webhook settles it, not the next poll.
 */
import { expect } from 'chai';
import { api } from '../helpers/http';
import { rows } from '../helpers/db';
import { createTenant } from '../helpers/factories';
import { expectWrapped } from '../helpers/envelope';
import { control } from '../helpers/sandbox';
import { waitForEvent } from '../helpers/transaction-events';
import { cardCharge, cardToken, cascade, charge, override, providerReferenceOf } from '../helpers/transactions';

describe('A capture:false card charge held for review and settled by the provider’s webhook', () => {
  it('capture intent survives settlement: payment_intent.amount_capturable_updated settles it pre_authorized with amount_captured 0 (transaction.pre_authorized), uncaptured at the provider, then captured through POST /capture', async () => {
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
    // Settled by the provider's webhook through the inbound endpoint, not by the settlement's poll.
    const receipts = await rows(
      `select event_type, status from provider_webhook_receipts where connector_id = ? order by received_at`,
      [connector.id],
    );
    expect(receipts).to.deep.equal([{ event_type: 'payment.succeeded', status: 'processed' }]);
    const order = (await api.get(`/orders/${tx.order_id}`, { key })).body.data;
    expect(order.status_history.at(-1)).to.include({ to_status: 'pre_authorized', triggered_by: 'psp_webhook' });
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
