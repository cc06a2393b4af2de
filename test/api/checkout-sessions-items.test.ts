import { expect } from 'chai';
import { api } from '../helpers/http';
import { addMerchant, createTenant, keyWithScopes, type Tenant } from '../helpers/factories';
import { expectError, expectFieldErrors, expectWrapped } from '../helpers/envelope';
import { HOUR, inFuture, newSession, sellableOffer, setStored, type SessionData } from '../helpers/checkout';
import { stack } from '../helpers/stack';

const NOT_OPEN: Array<[string, { status?: string; expires_at?: Date }]> = [
  ['in status abandoned', { status: 'abandoned' }],
  ['in status completed', { status: 'completed' }],
  ['in status payment_pending', { status: 'payment_pending' }],
  ['past its expires_at', { expires_at: new Date(Date.now() - 1000) }],
];

describe('Checkout session items', () => {
  let tenant: Tenant;
  let session: SessionData;
  let offerId: string;
  let bumpId: string;
  beforeEach(async () => {
    tenant = await createTenant();
    const created = await newSession(tenant, { selected_currency: 'USD', expires_at: inFuture(HOUR) });
    session = created.session;
    offerId = created.offer.id;
    bumpId = (
      await sellableOffer(tenant, {
        prices: [{ currency: 'USD', amount: 250, firstChargeAmount: 50, isDefault: true }],
      })
    ).offer.id;
  });

  const key = () => tenant.merchant_secret_key;
  const items = async () =>
    expectWrapped(await api.get(`/checkout-sessions/${session.id}`, { key: key() }), 200).items as Array<
      Record<string, unknown>
    >;
  const add = (
    body: Record<string, unknown>,
    options: { key?: string; headers?: Record<string, string>; id?: string } = {},
  ) =>
    api.post(`/checkout-sessions/${options.id ?? session.id}/items`, {
      key: options.key ?? key(),
      body,
      headers: options.headers,
    });

  describe('POST /api/v1/checkout-sessions/:id/items', () => {
    it("returns 201 with the item priced now in the session's currency, defaults 1 and 1", async () => {
      const item = expectWrapped(await add({ offer_id: bumpId }), 201);
      expect(item).to.include({
        checkout_session_id: session.id,
        offer_id: bumpId,
        currency: 'USD',
        amount: 250,
        first_charge_amount: 50,
        quantity: 1,
        installments: 1,
      });
      expect(item.id).to.match(/^cki_/);
      expect((await items()).map((entry) => entry.id)).to.deep.equal([session.items![0].id, item.id]);
    });

    it("moves the session's updated_at", async () => {
      await add({ offer_id: bumpId, quantity: 2, installments: 6 });
      const res = await api.get(`/checkout-sessions/${session.id}`, { key: key() });
      expect(Date.parse(res.body.data.updated_at)).to.be.above(Date.parse(session.updated_at));
    });

    it("rejects an offer without a price in the session's currency, another merchant's offer and an archived one with 400 naming offer_id", async () => {
      const brlOnly = await sellableOffer(tenant, { prices: [{ currency: 'BRL', amount: 100, isDefault: true }] });
      expectFieldErrors(await add({ offer_id: brlOnly.offer.id }), ['offer_id']);
      const foreign = await sellableOffer(await createTenant());
      expectFieldErrors(await add({ offer_id: foreign.offer.id }), ['offer_id']);
      await stack().orm.em.fork().execute(`update offers set status = 'archived' where id = ?`, [bumpId]);
      expectFieldErrors(await add({ offer_id: bumpId }), ['offer_id']);
      expect(await items()).to.have.length(1);
    });

    it('rejects quantity or installments below 1, missing offer_id and unknown fields with 400', async () => {
      expectFieldErrors(await add({ offer_id: bumpId, quantity: 0 }), ['quantity']);
      expectFieldErrors(await add({ offer_id: bumpId, installments: -1 }), ['installments']);
      expectFieldErrors(await add({ quantity: 1 }), ['offer_id']);
      expectFieldErrors(await add({ offer_id: bumpId, amount: 1 }), ['amount']);
    });

    for (const [label, stored] of NOT_OPEN) {
      it(`refuses a session ${label} with 422 INVALID_STATE_TRANSITION`, async () => {
        await setStored(session.id, stored);
        expectError(await add({ offer_id: bumpId }), 422, 'business_rule_error', 'INVALID_STATE_TRANSITION');
      });
    }

    it('refuses more than 50 items with 422 CHECKOUT_ITEM_LIMIT_REACHED', async () => {
      const full = await newSession(tenant, {
        items: Array.from({ length: 50 }, () => ({ offer_id: bumpId })),
        selected_currency: 'USD',
      });
      expectError(
        await add({ offer_id: bumpId }, { id: full.session.id }),
        422,
        'business_rule_error',
        'CHECKOUT_ITEM_LIMIT_REACHED',
      );
    });

    it('replays an idempotent add with 200, adding one item', async () => {
      const headers = { 'Idempotency-Key': `item-${Date.now()}` };
      const first = await add({ offer_id: bumpId }, { headers });
      const again = await add({ offer_id: bumpId }, { headers });
      expect([first.status, again.status]).to.deep.equal([201, 200]);
      expect(again.body.data).to.deep.equal(first.body.data);
      expect(await items()).to.have.length(2);
    });

    it("returns 404 for another merchant's session", async () => {
      const other = await newSession(await createTenant());
      expectError(await add({ offer_id: bumpId }, { id: other.session.id }), 404, 'not_found_error');
    });

    it('accepts an organization key with merchant_id in the body, and refuses a key without checkout:write', async () => {
      expectWrapped(
        await add({ offer_id: bumpId, merchant_id: tenant.merchant_id }, { key: tenant.organization_secret_key }),
        201,
      );
      expectError(await add({ offer_id: bumpId }, { key: await keyWithScopes(tenant, ['checkout:read']) }), 403);
    });
  });

  describe('PATCH /api/v1/checkout-sessions/:id/items/:itemId', () => {
    const update = (
      body: Record<string, unknown>,
      itemId = session.items![0].id,
      options: { key?: string; query?: Record<string, string> } = {},
    ) =>
      api.patch(`/checkout-sessions/${session.id}/items/${itemId}`, {
        key: options.key ?? key(),
        body,
        query: options.query,
      });

    it('changes quantity and installments and keeps the price snapshot', async () => {
      await stack().orm.em.fork().execute(`update offer_prices set amount = 5 where offer_id = ?`, [offerId]);
      const item = expectWrapped(await update({ quantity: 3, installments: 12 }), 200);
      expect(item).to.include({
        id: session.items![0].id,
        quantity: 3,
        installments: 12,
        amount: 999,
        currency: 'USD',
      });
      expect((await items())[0]).to.include({ quantity: 3, installments: 12 });
    });

    it('rejects quantity 0 and fields other than quantity and installments with 400', async () => {
      expectFieldErrors(await update({ quantity: 0 }), ['quantity']);
      expectFieldErrors(await update({ amount: 1 }), ['amount']);
      expectFieldErrors(await update({ offer_id: bumpId }), ['offer_id']);
    });

    it("returns 404 for an unknown item, another session's item and another merchant's session", async () => {
      expectError(await update({ quantity: 2 }, 'cki_unknown000000000000000'), 404, 'not_found_error');
      const sibling = await newSession(tenant);
      expectError(await update({ quantity: 2 }, sibling.session.items![0].id), 404, 'not_found_error');
      const foreign = await newSession(await createTenant());
      const res = await api.patch(`/checkout-sessions/${foreign.session.id}/items/${foreign.session.items![0].id}`, {
        key: key(),
        body: { quantity: 2 },
      });
      expectError(res, 404, 'not_found_error');
    });

    for (const [label, stored] of NOT_OPEN) {
      it(`refuses a session ${label} with 422 INVALID_STATE_TRANSITION`, async () => {
        await setStored(session.id, stored);
        expectError(await update({ quantity: 2 }), 422, 'business_rule_error', 'INVALID_STATE_TRANSITION');
      });
    }

    it('accepts an organization key with merchant_id in the query, and refuses a key without checkout:write', async () => {
      expectWrapped(
        await update({ quantity: 2 }, undefined, {
          key: tenant.organization_secret_key,
          query: { merchant_id: tenant.merchant_id },
        }),
        200,
      );
      expectError(
        await update({ quantity: 2 }, undefined, { key: await keyWithScopes(tenant, ['checkout:read']) }),
        403,
      );
    });
  });

  describe('DELETE /api/v1/checkout-sessions/:id/items/:itemId', () => {
    const remove = (itemId: string, options: { key?: string; query?: Record<string, string> } = {}) =>
      api.delete(`/checkout-sessions/${session.id}/items/${itemId}`, {
        key: options.key ?? key(),
        query: options.query,
      });

    it('returns 204 and the item is gone', async () => {
      const extra = expectWrapped(await add({ offer_id: bumpId }), 201);
      const res = await remove(session.items![0].id);
      expect(res.status).to.equal(204);
      expect(res.text).to.equal('');
      expect((await items()).map((item) => item.id)).to.deep.equal([extra.id]);
    });

    it('refuses to remove the last item with 422 CHECKOUT_ITEM_REQUIRED', async () => {
      expectError(await remove(session.items![0].id), 422, 'business_rule_error', 'CHECKOUT_ITEM_REQUIRED');
      expect(await items()).to.have.length(1);
    });

    for (const [label, stored] of NOT_OPEN) {
      it(`refuses a session ${label} with 422 INVALID_STATE_TRANSITION`, async () => {
        await add({ offer_id: bumpId });
        await setStored(session.id, stored);
        expectError(await remove(session.items![0].id), 422, 'business_rule_error', 'INVALID_STATE_TRANSITION');
      });
    }

    it("returns 404 for an unknown item and another merchant's session", async () => {
      expectError(await remove('cki_unknown000000000000000'), 404, 'not_found_error');
      const foreign = await newSession(await createTenant());
      const res = await api.delete(`/checkout-sessions/${foreign.session.id}/items/${foreign.session.items![0].id}`, {
        key: key(),
      });
      expectError(res, 404, 'not_found_error');
    });

    it('accepts an organization key with merchant_id in the query; a sibling merchant gets 404; checkout:read alone gets 403', async () => {
      await add({ offer_id: bumpId });
      const sibling = await addMerchant(tenant);
      expectError(
        await remove(session.items![0].id, {
          key: tenant.organization_secret_key,
          query: { merchant_id: sibling.merchantId },
        }),
        404,
      );
      expectError(await remove(session.items![0].id, { key: await keyWithScopes(tenant, ['checkout:read']) }), 403);
      expect(
        (
          await remove(session.items![0].id, {
            key: tenant.organization_secret_key,
            query: { merchant_id: tenant.merchant_id },
          })
        ).status,
      ).to.equal(204);
    });
  });
});
