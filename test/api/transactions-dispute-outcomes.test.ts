/**
 * A won dispute returns the transaction to the status it had before the dispute (the state table's dispute_won,
 * target 'by_refunds'): a transaction refunded in full before the dispute is refunded again after it, never
 * authorized, and the won dispute records transaction.dispute_won, not a second refund or success event.
 */
import { expect } from 'chai';
import { createTenant } from '../helpers/factories';
import { api } from '../helpers/http';
import { control } from '../helpers/sandbox';
import {
  cardCharge,
  cardToken,
  cascade,
  charge,
  providerReferenceOf,
  waitForTransaction,
} from '../helpers/transactions';
import { waitForEvent } from '../helpers/transaction-events';

describe('A won dispute returns the transaction to its status before the dispute', () => {
  it('a transaction refunded in full before the dispute is refunded again once the dispute is won, not authorized', async () => {
    const tenant = await createTenant();
    await cascade(tenant, ['provider_a']);
    const tx = (await charge(tenant, cardCharge(await cardToken(tenant)))).body.data;
    const refunded = await api.post(`/transactions/${tx.id}/refunds`, { key: tenant.merchant_secret_key, body: {} });
    expect(refunded.status, refunded.text).to.equal(201);
    expect((await waitForTransaction(tenant, tx.id, (t) => t.status === 'refunded')).status).to.equal('refunded');

    const reference = await providerReferenceOf(tenant, tx.id);
    expect((await control('POST', `/payments/${reference}/dispute`, { stage: 'opened' })).status).to.be.lessThan(300);
    expect((await waitForTransaction(tenant, tx.id, (t) => t.status === 'charged_back')).status).to.equal(
      'charged_back',
    );
    expect((await control('POST', `/payments/${reference}/dispute`, { stage: 'won' })).status).to.be.lessThan(300);
    const after = await waitForTransaction(tenant, tx.id, (t) => t.status !== 'charged_back');
    expect(after).to.include({ status: 'refunded', amount_refunded: 1500 });
    const types = await waitForEvent(tenant.merchant_id, tx.id, 'transaction.dispute_closed');
    expect(types.filter((t) => t === 'transaction.refunded')).to.have.length(1);
    expect(types.filter((t) => t === 'transaction.authorized')).to.have.length(1);
    expect(types).to.include('transaction.dispute_won');
    const order = (await api.get(`/orders/${tx.order_id}`, { key: tenant.merchant_secret_key })).body.data;
    expect(order.status).to.equal('refunded');
  });
});
