/** POST /api/v1/offers: Document 2 "Offer", "Offers" endpoints and constraints. */
import { expect } from 'chai';
import { api } from '../helpers/http';
import { addMerchant, createTenant, keyWithScopes, type Tenant } from '../helpers/factories';
import { expectError, expectFieldErrors, expectWrapped } from '../helpers/envelope';
import {
  createFamily,
  createFamilyProduct,
  createProduct,
  offerBody,
  OFFER_KEYS,
  postOffer,
  PRICE_KEYS,
  rows,
} from '../helpers/offers';

describe('POST /api/v1/offers', () => {
  let tenant: Tenant;
  let productId: string;
  beforeEach(async () => {
    tenant = await createTenant();
    productId = (await createFamilyProduct(tenant.merchant_id)).id;
  });
  const post = (body: Record<string, unknown>, key = tenant.merchant_secret_key) => api.post('/offers', { key, body });
  const offerCount = async () =>
    Number((await rows('select count(*) as n from offers where merchant_id = ?', [tenant.merchant_id]))[0].n);

  it('returns 201 with the offer and its prices, every documented field present', async () => {
    const res = await post(offerBody(productId, { slug: 'pro-monthly', description: 'Best plan', cycle_limit: 12 }));
    const offer = expectWrapped(res, 201);
    expect(Object.keys(offer).sort()).to.deep.equal([...OFFER_KEYS, 'prices'].sort());
    expect(offer.id).to.match(/^ofr_/);
    expect(offer).to.include({
      product_id: productId,
      name: 'Pro monthly',
      slug: 'pro-monthly',
      description: 'Best plan',
      billing_cycle: 'monthly',
      custom_billing_days: null,
      cycle_limit: 12,
      status: 'active',
      renewal_offer_id: null,
      trial_days: null,
    });
    expect(offer.prices).to.have.length(2);
    for (const price of offer.prices) {
      expect(Object.keys(price).sort()).to.deep.equal([...PRICE_KEYS].sort());
      expect(price.id).to.match(/^opr_/);
      expect(price.offer_id).to.equal(offer.id);
    }
    expect(offer.prices[0]).to.include({ currency: 'BRL', amount: 4990, first_charge_amount: null, is_default: true });
    expect(offer.prices[1]).to.include({ currency: 'USD', amount: 999, is_default: false });
  });

  it('applies the documented defaults: free_trial, setup_charge, renew_after_cycle_limit and is_default false; cycle_limit null', async () => {
    const offer = await postOffer(tenant, productId);
    expect(offer).to.include({
      free_trial: false,
      setup_charge: false,
      renew_after_cycle_limit: false,
      is_default: false,
      cycle_limit: null,
      description: null,
    });
  });

  it('makes the first price the default when none is flagged', async () => {
    const offer = await postOffer(tenant, productId, {
      prices: [
        { currency: 'USD', amount: 999 },
        { currency: 'BRL', amount: 4990 },
      ],
    });
    expect(offer.prices.map((p: any) => [p.currency, p.is_default])).to.deep.equal([
      ['USD', true],
      ['BRL', false],
    ]);
  });

  it('lists prices default first, then by currency ascending', async () => {
    const offer = await postOffer(tenant, productId, {
      prices: [
        { currency: 'USD', amount: 1 },
        { currency: 'EUR', amount: 2 },
        { currency: 'JPY', amount: 3, is_default: true },
        { currency: 'BRL', amount: 4 },
      ],
    });
    expect(offer.prices.map((p: any) => p.currency)).to.deep.equal(['JPY', 'BRL', 'EUR', 'USD']);
  });

  it('stores first_charge_amount when given (0 is kept as 0, not null)', async () => {
    const offer = await postOffer(tenant, productId, {
      setup_charge: true,
      prices: [
        { currency: 'BRL', amount: 4990, first_charge_amount: 0 },
        { currency: 'USD', amount: 999, first_charge_amount: 199 },
      ],
    });
    expect(offer.prices.map((p: any) => p.first_charge_amount)).to.deep.equal([0, 199]);
  });

  it('accepts a custom cycle with custom_billing_days and a free trial with trial_days', async () => {
    const offer = await postOffer(tenant, productId, {
      billing_cycle: 'custom',
      custom_billing_days: 45,
      free_trial: true,
      trial_days: 7,
    });
    expect(offer).to.include({ billing_cycle: 'custom', custom_billing_days: 45, free_trial: true, trial_days: 7 });
  });

  for (const cycle of ['daily', 'biweekly', 'monthly', 'quarterly', 'half_yearly', 'yearly', 'none']) {
    it(`accepts billing_cycle ${cycle}`, async () => {
      expect((await postOffer(tenant, productId, { billing_cycle: cycle })).billing_cycle).to.equal(cycle);
    });
  }

  it('checks every price before writing anything: a bad price leaves no offer behind', async () => {
    const res = await post(
      offerBody(productId, {
        prices: [
          { currency: 'BRL', amount: 1 },
          { currency: 'BRL', amount: 2 },
        ],
      }),
    );
    expectError(res, 400, 'validation_error');
    expect(await offerCount()).to.equal(0);
  });

  it('replays the first response with 200 for the same Idempotency-Key, creating one offer', async () => {
    const body = offerBody(productId);
    const headers = { 'Idempotency-Key': `offer-${Date.now()}` };
    const first = await api.post('/offers', { key: tenant.merchant_secret_key, body, headers });
    const again = await api.post('/offers', { key: tenant.merchant_secret_key, body, headers });
    expect(first.status).to.equal(201);
    expect(again.status).to.equal(200);
    expect(again.body.data).to.deep.equal(first.body.data);
    expect(await offerCount()).to.equal(1);
  });

  it('accepts the idempotency key as the idempotency_key body field', async () => {
    const body = offerBody(productId, { idempotency_key: `body-${Date.now()}` });
    expect((await post(body)).status).to.equal(201);
    expect((await post(body)).status).to.equal(200);
  });

  describe('slug', () => {
    it('returns 409 OFFER_SLUG_TAKEN when a live offer of the product has the slug', async () => {
      const first = await postOffer(tenant, productId, { slug: 'gold' });
      const error = expectError(
        await post(offerBody(productId, { slug: 'gold' })),
        409,
        'conflict_error',
        'OFFER_SLUG_TAKEN',
      );
      expect(error.details).to.include({ slug: 'gold', existing_offer_id: first.id });
    });

    it('allows the same slug on another product', async () => {
      await postOffer(tenant, productId, { slug: 'gold' });
      const other = await createFamilyProduct(tenant.merchant_id);
      expect((await post(offerBody(other.id, { slug: 'gold' }))).status).to.equal(201);
    });

    it('frees the slug when the offer is deleted', async () => {
      const first = await postOffer(tenant, productId, { slug: 'gold' });
      await api.delete(`/offers/${first.id}`, { key: tenant.merchant_secret_key });
      expect((await post(offerBody(productId, { slug: 'gold' }))).status).to.equal(201);
    });

    it('rejects an uppercase or malformed slug with 400', async () => {
      for (const slug of ['Gold', 'gold plan', '-gold', '']) {
        expectFieldErrors(await post(offerBody(productId, { slug })), ['slug']);
      }
    });
  });

  describe('is_default', () => {
    it('returns 409 OFFER_DEFAULT_EXISTS for a second live default offer of the product, naming the existing one', async () => {
      const first = await postOffer(tenant, productId, { is_default: true });
      const error = expectError(
        await post(offerBody(productId, { is_default: true })),
        409,
        'conflict_error',
        'OFFER_DEFAULT_EXISTS',
      );
      expect(error.details).to.include({ product_id: productId, existing_offer_id: first.id });
    });

    it('answers concurrent default offers for one product with one 201 and 409s, never a 500', async () => {
      const responses = await Promise.all(
        Array.from({ length: 4 }, () => post(offerBody(productId, { is_default: true }))),
      );
      expect(responses.map((res) => res.status).sort()).to.deep.equal([201, 409, 409, 409]);
      for (const res of responses.filter((r) => r.status === 409))
        expectError(res, 409, 'conflict_error', 'OFFER_DEFAULT_EXISTS');
      expect(await offerCount()).to.equal(1);
    });

    it('allows a default offer on each product', async () => {
      await postOffer(tenant, productId, { is_default: true });
      const other = await createFamilyProduct(tenant.merchant_id);
      expect((await postOffer(tenant, other.id, { is_default: true })).is_default).to.equal(true);
    });
  });

  describe('product_id', () => {
    it("rejects another merchant's product with 400 naming product_id, never its data", async () => {
      const other = await createTenant();
      const foreign = await createFamilyProduct(other.merchant_id);
      expectFieldErrors(await post(offerBody(foreign.id)), ['product_id']);
    });

    it('rejects an unknown or soft-deleted product with 400 naming product_id', async () => {
      expectFieldErrors(await post(offerBody('prd_doesnotexist0000000000')), ['product_id']);
      const gone = await createProduct(tenant.merchant_id, null, { deletedAt: new Date() });
      expectFieldErrors(await post(offerBody(gone.id)), ['product_id']);
    });

    it('accepts an archived product (archived products stay in the catalog)', async () => {
      const archived = await createProduct(tenant.merchant_id, null, { status: 'archived' });
      expect((await post(offerBody(archived.id))).status).to.equal(201);
    });
  });

  describe('renewal_offer_id', () => {
    it('accepts a live offer of the same product family', async () => {
      const family = await createFamily(tenant.merchant_id);
      const [basic, pro] = [
        await createFamilyProduct(tenant.merchant_id, family.id),
        await createFamilyProduct(tenant.merchant_id, family.id),
      ];
      const target = await postOffer(tenant, pro.id);
      const offer = await postOffer(tenant, basic.id, {
        cycle_limit: 12,
        renew_after_cycle_limit: true,
        renewal_offer_id: target.id,
      });
      expect(offer).to.include({ renewal_offer_id: target.id, renew_after_cycle_limit: true, cycle_limit: 12 });
    });

    it('rejects an offer of another family with 400 naming renewal_offer_id', async () => {
      const elsewhere = await postOffer(tenant, (await createFamilyProduct(tenant.merchant_id)).id);
      expectFieldErrors(await post(offerBody(productId, { renewal_offer_id: elsewhere.id })), ['renewal_offer_id']);
    });

    it("rejects an unknown, deleted or another merchant's offer with 400", async () => {
      const deleted = await postOffer(tenant, productId);
      await api.delete(`/offers/${deleted.id}`, { key: tenant.merchant_secret_key });
      const other = await createTenant();
      const foreign = await postOffer(other, (await createFamilyProduct(other.merchant_id)).id);
      for (const id of ['ofr_doesnotexist0000000000', deleted.id, foreign.id]) {
        expectFieldErrors(await post(offerBody(productId, { renewal_offer_id: id })), ['renewal_offer_id']);
      }
    });

    it('for a product without a family, accepts another offer of the same product and refuses any other', async () => {
      const standalone = await createProduct(tenant.merchant_id);
      const sibling = await postOffer(tenant, standalone.id);
      expect((await postOffer(tenant, standalone.id, { renewal_offer_id: sibling.id })).renewal_offer_id).to.equal(
        sibling.id,
      );
      const unrelated = await postOffer(tenant, (await createProduct(tenant.merchant_id)).id);
      expectFieldErrors(await post(offerBody(standalone.id, { renewal_offer_id: unrelated.id })), ['renewal_offer_id']);
    });
  });

  describe('billing terms that must agree', () => {
    const cases: Array<[string, Record<string, unknown>, string]> = [
      ['custom cycle without custom_billing_days', { billing_cycle: 'custom' }, 'custom_billing_days'],
      [
        'custom_billing_days on a non-custom cycle',
        { billing_cycle: 'monthly', custom_billing_days: 30 },
        'custom_billing_days',
      ],
      ['free_trial without trial_days', { free_trial: true }, 'trial_days'],
      ['trial_days without free_trial', { trial_days: 7 }, 'trial_days'],
    ];
    for (const [what, overrides, field] of cases) {
      it(`rejects ${what} with 400 naming ${field}`, async () => {
        expectFieldErrors(await post(offerBody(productId, overrides)), [field]);
        expect(await offerCount()).to.equal(0);
      });
    }
  });

  describe('prices', () => {
    const invalid: Array<[string, unknown, string]> = [
      ['an empty prices array', [], 'prices'],
      ['a 2-letter currency', [{ currency: 'US', amount: 1 }], 'prices.0.currency'],
      ['a 4-letter currency', [{ currency: 'USDX', amount: 1 }], 'prices.0.currency'],
      ['a currency that is not ISO 4217', [{ currency: 'ABC', amount: 1 }], 'prices.0.currency'],
      ['a negative amount', [{ currency: 'USD', amount: -1 }], 'prices.0.amount'],
      ['a decimal amount', [{ currency: 'USD', amount: 9.99 }], 'prices.0.amount'],
      ['an amount sent as a string', [{ currency: 'USD', amount: '999' }], 'prices.0.amount'],
      [
        'a negative first_charge_amount',
        [{ currency: 'USD', amount: 1, first_charge_amount: -1 }],
        'prices.0.first_charge_amount',
      ],
      ['a price without amount', [{ currency: 'USD' }], 'prices.0.amount'],
      ['a price with an unknown field', [{ currency: 'USD', amount: 1, interval: 'month' }], 'prices.0.interval'],
      [
        'the same currency twice',
        [
          { currency: 'USD', amount: 1 },
          { currency: 'USD', amount: 2 },
        ],
        'prices.1.currency',
      ],
      [
        'two default prices',
        [
          { currency: 'USD', amount: 1, is_default: true },
          { currency: 'EUR', amount: 2, is_default: true },
        ],
        'prices.1.is_default',
      ],
    ];
    for (const [what, prices, field] of invalid) {
      it(`rejects ${what} with 400 naming ${field} and creates nothing`, async () => {
        expectFieldErrors(await post(offerBody(productId, { prices })), [field]);
        expect(await offerCount()).to.equal(0);
      });
    }
  });

  const required = ['product_id', 'name', 'slug', 'billing_cycle', 'status', 'prices'];
  for (const field of required) {
    it(`rejects a body without ${field} with 400 naming it`, async () => {
      const body = offerBody(productId);
      delete body[field];
      expectFieldErrors(await post(body), [field]);
    });
  }

  const badValues: Array<[string, Record<string, unknown>, string]> = [
    ['an unknown billing_cycle', { billing_cycle: 'weekly' }, 'billing_cycle'],
    ['an unknown status', { status: 'draft' }, 'status'],
    ['cycle_limit 0', { cycle_limit: 0 }, 'cycle_limit'],
    ['custom_billing_days 0', { billing_cycle: 'custom', custom_billing_days: 0 }, 'custom_billing_days'],
    ['trial_days 0', { free_trial: true, trial_days: 0 }, 'trial_days'],
    ['a string free_trial', { free_trial: 'yes' }, 'free_trial'],
    ['an unknown field', { currency: 'USD' }, 'currency'],
  ];
  for (const [what, overrides, field] of badValues) {
    it(`rejects ${what} with 400`, async () => {
      expectFieldErrors(await post(offerBody(productId, overrides)), [field]);
    });
  }

  it('accepts an organization key with merchant_id in the body', async () => {
    const res = await post(
      { ...offerBody(productId), merchant_id: tenant.merchant_id },
      tenant.organization_secret_key,
    );
    expect(expectWrapped(res, 201).product_id).to.equal(productId);
  });

  it('refuses an organization key without merchant_id (403)', async () => {
    expectError(await post(offerBody(productId), tenant.organization_secret_key), 403, 'authorization_error');
  });

  it("rejects a product of the organization's other merchant with 400 (the product must be the named merchant's)", async () => {
    const second = await addMerchant(tenant);
    const res = await post({ ...offerBody(productId), merchant_id: second.merchantId }, tenant.organization_secret_key);
    expectFieldErrors(res, ['product_id']);
  });

  it('refuses a key without offers:write (403), even with offers:read', async () => {
    const key = await keyWithScopes(tenant, ['offers:read', 'products:write']);
    expectError(await post(offerBody(productId), key), 403, 'authorization_error');
  });
});
