/**
 * A test_clock_id that cannot apply is a 400, never dropped: a known e-mail answers with the existing customer, so a
 * clock sent with it applies only when that customer is already on that clock.
 */
import { expect } from 'chai';
import { api } from '../helpers/http';
import { customerInput, createTenant } from '../helpers/factories';
import { expectError, expectWrapped } from '../helpers/envelope';
import { createClock } from '../helpers/test-clocks';
import { sellableOffer } from '../helpers/checkout';

describe('test_clock_id on a customer that already exists', () => {
  it('POST /customers with a known e-mail and a test_clock_id the customer is not on answers 400 and changes nothing', async () => {
    const tenant = await createTenant();
    const key = tenant.merchant_secret_key;
    const body = customerInput();
    const existing = expectWrapped(await api.post('/customers', { key, body }), 201);
    const clock = await createClock(tenant, '2027-01-31T12:00:00.000Z');
    const error = expectError(
      await api.post('/customers', { key, body: { ...body, test_clock_id: clock.id } }),
      400,
      'validation_error',
    );
    expect(error.details.test_clock_id[0]).to.include(existing.id).and.to.include('new e-mail');
    const after = expectWrapped(await api.get(`/customers/${existing.id}`, { key }), 200);
    expect(after.test_clock_id).to.equal(undefined);
  });

  it('the same e-mail on the same clock answers 200 with that customer', async () => {
    const tenant = await createTenant();
    const key = tenant.merchant_secret_key;
    const clock = await createClock(tenant, '2027-01-31T12:00:00.000Z');
    const body = customerInput({ test_clock_id: clock.id });
    const first = expectWrapped(await api.post('/customers', { key, body }), 201);
    const again = expectWrapped(await api.post('/customers', { key, body }), 200);
    expect(again).to.include({ id: first.id, test_clock_id: clock.id });
  });

  it("a checkout's inline customer with a known e-mail and a test_clock_id answers 400 on customer.test_clock_id", async () => {
    const tenant = await createTenant();
    const key = tenant.merchant_secret_key;
    const body = customerInput();
    expectWrapped(await api.post('/customers', { key, body }), 201);
    const clock = await createClock(tenant, '2027-01-31T12:00:00.000Z');
    const { offer } = await sellableOffer(tenant);
    const res = await api.post('/checkout-sessions', {
      key,
      body: { offer_id: offer.id, customer: { ...body, test_clock_id: clock.id } },
    });
    const error = expectError(res, 400, 'validation_error');
    expect(Object.keys(error.details)).to.deep.equal(['customer.test_clock_id']);
  });
});
