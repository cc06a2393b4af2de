/**
 * Test payment-method shortcuts (docs/api-decisions.md, "Test payment methods"): for a merchant in test mode,
 * POST /merchants/:id/payment-instruments takes `payment_method: "pm_card_visa"` (and a few others) instead of a card
 * token, saves the sandbox card it stands for to the customer, and the saved card is charged like any other. The
 * number is never shown; a merchant with a live connector is refused and nothing is saved.
 */
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { api } from '../helpers/http';
import { createTenant, customerInput, type Tenant } from '../helpers/factories';
import { expectError } from '../helpers/envelope';
import { connectorBody, connectorsPath } from '../helpers/connectors';
import { cascade, charge } from '../helpers/transactions';

const instrumentsPath = (tenant: Tenant) => `/merchants/${tenant.merchant_id}/payment-instruments`;

async function newCustomer(tenant: Tenant): Promise<string> {
  const res = await api.post('/customers', {
    key: tenant.merchant_secret_key,
    headers: { 'idempotency-key': randomUUID() },
    body: customerInput(),
  });
  expect(res.status, res.text).to.equal(201);
  return res.body.data.id;
}

const save = (tenant: Tenant, body: Record<string, unknown>) =>
  api.post(instrumentsPath(tenant), { key: tenant.merchant_secret_key, body });

const chargeSaved = (tenant: Tenant, customerId: string, instrumentId: string) =>
  charge(tenant, {
    payment_method: 'credit_card',
    charge_type: 'payment',
    country: 'US',
    amount: 2500,
    currency: 'USD',
    customer_id: customerId,
    payment_instrument_id: instrumentId,
  });

describe('Test payment methods (pm_card_*): save and charge a test card without any card entry', function () {
  this.timeout(90_000);
  let tenant: Tenant;
  let customerId: string;
  beforeEach(async () => {
    tenant = await createTenant();
    customerId = await newCustomer(tenant);
  });

  it('pm_card_visa saves visa 4242 to the customer, never showing the number, and its charge is authorized', async () => {
    await cascade(tenant, ['provider_a']);
    const saved = await save(tenant, { customer_id: customerId, payment_method: 'pm_card_visa' });
    expect(saved.status, saved.text).to.equal(200);
    expect(saved.body).to.include({ customer_id: customerId, card_brand: 'visa', last4: '4242', status: 'active' });
    expect(saved.text).to.not.include('4242424242424242');
    const charged = await chargeSaved(tenant, customerId, saved.body.id);
    expect(charged.status, charged.text).to.equal(201);
    expect(charged.body.data).to.include({ status: 'authorized', payment_instrument_id: saved.body.id });
    expect(charged.text).to.not.include('4242424242424242');
  });

  it('pm_card_mastercard saves mastercard 4444; saving it again for the same customer is deduplicated', async () => {
    await cascade(tenant, ['provider_a']);
    const first = await save(tenant, { customer_id: customerId, payment_method: 'pm_card_mastercard' });
    expect(first.status, first.text).to.equal(200);
    expect(first.body).to.include({ card_brand: 'mastercard', last4: '4444', deduplicated: false });
    const again = await save(tenant, { customer_id: customerId, payment_method: 'pm_card_mastercard' });
    expect(again.body).to.include({ id: first.body.id, deduplicated: true });
  });

  it('pm_card_chargeDeclined saves (as 0341 does) and every charge of it fails do_not_honor', async () => {
    await cascade(tenant, ['provider_a']);
    const saved = await save(tenant, { customer_id: customerId, payment_method: 'pm_card_chargeDeclined' });
    expect(saved.status, saved.text).to.equal(200);
    expect(saved.body).to.include({ last4: '0341', status: 'active' });
    const charged = await chargeSaved(tenant, customerId, saved.body.id);
    expect(charged.body.data).to.include({ status: 'failed', failure_code: 'do_not_honor' });
  });

  it('pm_card_threeDSecureRequired saves the 3220 card', async () => {
    await cascade(tenant, ['provider_a']);
    const saved = await save(tenant, { customer_id: customerId, payment_method: 'pm_card_threeDSecureRequired' });
    expect(saved.status, saved.text).to.equal(200);
    expect(saved.body).to.include({ card_brand: 'visa', last4: '3220' });
  });

  it('a merchant with a live connector is refused with 400 TEST_PAYMENT_METHOD_LIVE_MODE, and nothing is saved', async () => {
    const live = await api.post(connectorsPath(tenant.merchant_id), {
      key: tenant.merchant_secret_key,
      body: connectorBody('provider_a', { name: 'Live', is_test_mode: false }),
    });
    expect(live.status, live.text).to.equal(201);
    const refused = await save(tenant, { customer_id: customerId, payment_method: 'pm_card_visa' });
    expectError(refused, 400, 'validation_error', 'TEST_PAYMENT_METHOD_LIVE_MODE');
    expect(refused.body.error.message).to.match(/test mode only/);
    const listed = await api.get(`${instrumentsPath(tenant)}?customer_id=${customerId}`, {
      key: tenant.merchant_secret_key,
    });
    expect(listed.body.data).to.deep.equal([]);
  });

  it('exactly one of card_ciphertext_id and payment_method: both, or neither, is a 400; an unknown pm_card_ is a 400', async () => {
    await cascade(tenant, ['provider_a']);
    expectError(
      await save(tenant, {
        customer_id: customerId,
        payment_method: 'pm_card_visa',
        card_ciphertext_id: 'tok_0000000000000000000000',
      }),
      400,
    );
    expectError(await save(tenant, { customer_id: customerId }), 400);
    expectError(await save(tenant, { customer_id: customerId, payment_method: 'pm_card_unknown' }), 400);
  });
});
