/**
 * charge_type setup_verification: the card is validated with the provider's zero-amount check (verifyCard),
 * never authorized for money.
 */
import { expect } from 'chai';
import { api } from '../helpers/http';
import { createTenant, type Tenant } from '../helpers/factories';
import { ledger } from '../helpers/sandbox';
import { CARDS } from '../helpers/vault';
import { cardCharge, cardToken, cascade, charge } from '../helpers/transactions';

describe('POST /api/v1/transactions with charge_type setup_verification', () => {
  let tenant: Tenant;

  beforeEach(async () => {
    tenant = await createTenant();
    await cascade(tenant, ['provider_a']);
  });

  it('verifies the card with a zero-amount check and bills nothing', async () => {
    const res = await charge(
      tenant,
      cardCharge(await cardToken(tenant), { charge_type: 'setup_verification', amount: 0 }),
    );
    expect(res.status, res.text).to.equal(201);
    const tx = res.body.data;
    expect(tx.charge_type).to.equal('setup_verification');
    expect(tx.status).to.equal('authorized');
    expect(tx.amount_authorized).to.equal(0);
    const calls = (await ledger({ reference: tx.id })).filter((entry) => !entry.replayed);
    expect(calls.map((entry) => entry.operation)).to.deep.equal(['verify']);
    expect(calls[0].amount).to.equal(0);
  });

  it('records its order with order_type card_setup (Document 3), not api', async () => {
    const res = await charge(
      tenant,
      cardCharge(await cardToken(tenant), { charge_type: 'setup_verification', amount: 0 }),
    );
    expect(res.status, res.text).to.equal(201);
    const order = await api.get(`/orders/${res.body.data.order_id}`, { key: tenant.merchant_secret_key });
    expect(order.body.data).to.include({ order_type: 'card_setup', total_amount: 0 });
  });

  it('fails without billing when the provider refuses the card', async () => {
    const res = await charge(
      tenant,
      cardCharge(await cardToken(tenant, CARDS.stolen), { charge_type: 'setup_verification', amount: 0 }),
    );
    expect(res.status, res.text).to.equal(201);
    expect(res.body.data.status).to.equal('failed');
    const operations = (await ledger({ reference: res.body.data.id })).map((entry) => entry.operation);
    expect(operations).to.not.include('authorize');
  });
});
