/**
 * Disputes by provider webhook: opened → charged_back; closed won → back to authorized (transaction.dispute_won);
 * closed lost → stays charged_back (transaction.dispute_lost); transaction.dispute_closed either way. Each
 * provider states the outcome its own way (status, event code or event type), so the won case runs on each.
 */
import { expect } from 'chai';
import { createTenant } from '../helpers/factories';
import { control } from '../helpers/sandbox';
import { api } from '../helpers/http';
import {
  cardCharge,
  cardToken,
  cascade,
  charge,
  providerReferenceOf,
  waitForTransaction,
} from '../helpers/transactions';
import { waitForEvent } from '../helpers/transaction-events';

const currencyOf = (slug: string) =>
  slug === 'provider_b' || slug === 'provider_c'
    ? { currency: 'BRL', country: 'BR' }
    : { currency: 'USD', country: 'US' };

async function disputed(slug: string) {
  const tenant = await createTenant();
  await cascade(tenant, [slug]);
  const tx = (await charge(tenant, cardCharge(await cardToken(tenant), currencyOf(slug)))).body.data;
  expect(tx.status).to.equal('authorized');
  const reference = await providerReferenceOf(tenant, tx.id);
  const opened = await control('POST', `/payments/${reference}/dispute`, { stage: 'opened' });
  expect(opened.status, JSON.stringify(opened.body)).to.be.lessThan(300);
  expect((await waitForTransaction(tenant, tx.id, (t) => t.status !== 'authorized')).status).to.equal('charged_back');
  return { tenant, tx, reference };
}

describe('Provider dispute webhooks — won and lost', () => {
  for (const slug of ['provider_a', 'provider_b', 'provider_c', 'checkout']) {
    it(`a won dispute moves a charged_back transaction back to authorized with transaction.dispute_won only (${slug})`, async () => {
      const { tenant, tx, reference } = await disputed(slug);
      const won = await control('POST', `/payments/${reference}/dispute`, { stage: 'won' });
      expect(won.status, JSON.stringify(won.body)).to.be.lessThan(300);
      expect((await waitForTransaction(tenant, tx.id, (t) => t.status !== 'charged_back')).status).to.equal(
        'authorized',
      );
      const types = await waitForEvent(tenant.merchant_id, tx.id, 'transaction.dispute_closed');
      // Events written in one database transaction may share a millisecond, so no order is asserted.
      expect(types).to.include.members([
        'transaction.charged_back',
        'transaction.dispute_won',
        'transaction.dispute_closed',
      ]);
      // The charge's own transaction.authorized only: the won dispute is told by dispute_won, not a second success.
      expect(types.filter((t) => t === 'transaction.authorized')).to.have.length(1);
      expect(types).to.not.include('transaction.dispute_lost');
    });
  }

  it('a won dispute returns a partially refunded transaction to partially_refunded, not authorized', async () => {
    const tenant = await createTenant();
    await cascade(tenant, ['provider_a']);
    const tx = (await charge(tenant, cardCharge(await cardToken(tenant)))).body.data;
    const refunded = await api.post(`/transactions/${tx.id}/refunds`, {
      key: tenant.merchant_secret_key,
      body: { amount: 500 },
    });
    expect(refunded.status, refunded.text).to.equal(201);
    const reference = await providerReferenceOf(tenant, tx.id);
    expect((await control('POST', `/payments/${reference}/dispute`, { stage: 'opened' })).status).to.be.lessThan(300);
    expect((await waitForTransaction(tenant, tx.id, (t) => t.status === 'charged_back')).status).to.equal(
      'charged_back',
    );
    expect((await control('POST', `/payments/${reference}/dispute`, { stage: 'won' })).status).to.be.lessThan(300);
    const after = await waitForTransaction(tenant, tx.id, (t) => t.status !== 'charged_back');
    expect(after).to.include({ status: 'partially_refunded', amount_refunded: 500 });
    const types = await waitForEvent(tenant.merchant_id, tx.id, 'transaction.dispute_closed');
    expect(types.filter((t) => t === 'transaction.partially_refunded')).to.have.length(1);
  });

  it('a lost dispute keeps the transaction charged_back and records transaction.dispute_lost, then dispute_closed', async () => {
    const { tenant, tx, reference } = await disputed('provider_a');
    const lost = await control('POST', `/payments/${reference}/dispute`, { stage: 'lost' });
    expect(lost.status, JSON.stringify(lost.body)).to.be.lessThan(300);
    const types = await waitForEvent(tenant.merchant_id, tx.id, 'transaction.dispute_closed');
    expect(types).to.include.members([
      'transaction.charged_back',
      'transaction.dispute_lost',
      'transaction.dispute_closed',
    ]);
    expect(types.filter((t) => t === 'transaction.authorized')).to.have.length(1);
    expect(types).to.not.include('transaction.dispute_won');
    expect((await waitForTransaction(tenant, tx.id, () => true)).status).to.equal('charged_back');
  });
});
