/**
 * A charge no active routing profile can serve is a configuration mistake, not a decline: 422
 * ROUTING_NOT_CONFIGURED naming the payment method and the fix, and nothing is written (no transaction, no order,
 * nothing counted in the approval rate).
 */
import { expect } from 'chai';
import { createTenant } from '../helpers/factories';
import { rows } from '../helpers/db';
import { api } from '../helpers/http';
import { expectError, expectWrapped } from '../helpers/envelope';
import { cardCharge, cardToken, cascade, charge } from '../helpers/transactions';

async function written(merchantId: string): Promise<number[]> {
  const [counts] = await rows(
    `select (select count(*) from transactions where merchant_id = ?)::int as transactions,
            (select count(*) from orders where merchant_id = ?)::int as orders`,
    [merchantId, merchantId],
  );
  return [counts.transactions, counts.orders];
}

describe('POST /api/v1/transactions — routing not configured', () => {
  it('a card charge with no active routing profile answers 422 ROUTING_NOT_CONFIGURED naming the method and the fix, and creates nothing', async () => {
    const tenant = await createTenant();
    await cascade(tenant, ['provider_a']);
    const base = `/merchants/${tenant.merchant_id}/routing-profiles`;
    const [profile] = (await api.get(base, { key: tenant.merchant_secret_key })).body.data;
    const off = await api.patch(`${base}/${profile.id}`, {
      key: tenant.merchant_secret_key,
      body: { is_active: false },
    });
    expect(off.status, off.text).to.equal(200);
    const token = await cardToken(tenant);
    const error = expectError(
      await charge(tenant, cardCharge(token)),
      422,
      'business_rule_error',
      'ROUTING_NOT_CONFIGURED',
    );
    expect(error.message)
      .to.include('credit_card')
      .and.to.include(`POST /merchants/${tenant.merchant_id}/routing-profiles`);
    expect(error.details).to.deep.equal({ payment_method: 'credit_card' });
    expect(await written(tenant.merchant_id)).to.deep.equal([0, 0]);
    // The token was not spent: once routing is on again, the same card pays.
    const on = await api.patch(`${base}/${profile.id}`, { key: tenant.merchant_secret_key, body: { is_active: true } });
    expect(on.status, on.text).to.equal(200);
    expect(expectWrapped(await charge(tenant, cardCharge(token)), 201).status).to.equal('authorized');
  });

  it('a pix charge when only cards are routed answers 422 ROUTING_NOT_CONFIGURED for pix', async () => {
    const tenant = await createTenant();
    await cascade(tenant, ['provider_a']);
    const base = `/merchants/${tenant.merchant_id}/routing-profiles`;
    const [profile] = (await api.get(base, { key: tenant.merchant_secret_key })).body.data;
    // The catch-all becomes a card-only profile: pix has no profile at all.
    const narrowed = await api.patch(`${base}/${profile.id}`, {
      key: tenant.merchant_secret_key,
      body: { payment_method: 'credit_card' },
    });
    expect(narrowed.status, narrowed.text).to.equal(200);
    const error = expectError(
      await charge(tenant, {
        payment_method: 'pix',
        charge_type: 'payment',
        country: 'BR',
        amount: 1000,
        currency: 'BRL',
      }),
      422,
      'business_rule_error',
      'ROUTING_NOT_CONFIGURED',
    );
    expect(error.message).to.include('pix');
    expect(await written(tenant.merchant_id)).to.deep.equal([0, 0]);
  });
});
