/** POST /transactions: body rules, references, keys and scopes, idempotency, and the order it creates. */
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { api } from '../helpers/http';
import { addMerchant, createTenant, keyWithScopes, type Tenant } from '../helpers/factories';
import { expectError, expectFieldErrors, expectWrapped } from '../helpers/envelope';
import { ledger } from '../helpers/sandbox';
import { createSession, sellableOffer, storedStatus } from '../helpers/checkout';
import { CARDS, createCustomer, saveCard } from '../helpers/vault';
import { rows } from '../helpers/connectors';
import { cardCharge, cardToken, cascade, charge } from '../helpers/transactions';

describe('POST /api/v1/transactions — rules', () => {
  let tenant: Tenant;
  before(async () => {
    tenant = await createTenant();
    await cascade(tenant, ['provider_a']);
  });

  it('requires an idempotency key: 400 IDEMPOTENCY_KEY_REQUIRED', async () => {
    const res = await charge(tenant, cardCharge(await cardToken(tenant)), { idempotencyKey: null });
    expectError(res, 400, 'validation_error', 'IDEMPOTENCY_KEY_REQUIRED');
  });

  it('accepts the key as the idempotency_key body field', async () => {
    const res = await charge(
      tenant,
      { ...cardCharge(await cardToken(tenant)), idempotency_key: randomUUID() },
      { idempotencyKey: null },
    );
    expect(res.status, res.text).to.equal(201);
  });

  it('a card charge needs exactly one card source: none or two → 400', async () => {
    const token = await cardToken(tenant);
    expectFieldErrors(await charge(tenant, cardCharge(token, { card_ciphertext_id: undefined })), ['card_source']);
    expectFieldErrors(await charge(tenant, cardCharge(token, { payment_instrument_id: 'pi_abc' })), ['card_source']);
  });

  it('pix, boleto and wallet take no card source; wallet needs wallet_type and only wallet may send it', async () => {
    const token = await cardToken(tenant);
    expectFieldErrors(await charge(tenant, cardCharge(token, { payment_method: 'pix', currency: 'BRL' })), [
      'card_ciphertext_id',
    ]);
    expectFieldErrors(
      await charge(tenant, {
        payment_method: 'wallet',
        charge_type: 'payment',
        country: 'US',
        amount: 100,
        currency: 'USD',
      }),
      ['wallet_type'],
    );
    expectFieldErrors(await charge(tenant, cardCharge(token, { wallet_type: 'apple_pay' })), ['wallet_type']);
    expectFieldErrors(
      await charge(tenant, {
        payment_method: 'wallet',
        wallet_type: 'nfc_ring',
        charge_type: 'payment',
        country: 'US',
        amount: 100,
        currency: 'USD',
      }),
      ['wallet_type'],
    );
  });

  it('amount and currency are required without a checkout session; setup_verification needs amount 0', async () => {
    const token = await cardToken(tenant);
    expectFieldErrors(await charge(tenant, cardCharge(token, { amount: undefined, currency: undefined })), [
      'amount',
      'currency',
    ]);
    expectFieldErrors(await charge(tenant, cardCharge(token, { charge_type: 'setup_verification' })), ['amount']);
    expectFieldErrors(await charge(tenant, cardCharge(token, { amount: 0 })), ['amount']);
  });

  it('rejects bad input with 400: risk_score outside 0–100, negative amount, 2-letter currency, unknown fields, bad enums', async () => {
    const token = await cardToken(tenant);
    expectFieldErrors(await charge(tenant, cardCharge(token, { risk_score: 101 })), ['risk_score']);
    expectFieldErrors(await charge(tenant, cardCharge(token, { amount: -1 })), ['amount']);
    expectFieldErrors(await charge(tenant, cardCharge(token, { currency: 'US' })), ['currency']);
    expectFieldErrors(await charge(tenant, cardCharge(token, { colour: 'red' })), ['colour']);
    expectFieldErrors(await charge(tenant, cardCharge(token, { payment_method: 'cheque' })), ['payment_method']);
    expectFieldErrors(await charge(tenant, cardCharge(token, { installments: { count: 0 } })), ['installments.count']);
  });

  it('stores risk_score, installments, external_order_id and metadata; capture defaults to true', async () => {
    const res = await charge(
      tenant,
      cardCharge(await cardToken(tenant), {
        risk_score: 42,
        installments: { count: 3 },
        external_order_id: 'po-1',
        metadata: { cart: 'c1' },
      }),
    );
    const tx = expectWrapped(res, 201);
    expect(tx).to.include({
      risk_score: 42,
      installments: 3,
      external_order_id: 'po-1',
      capture: true,
      status: 'authorized',
    });
    expect(tx.metadata).to.deep.equal({ cart: 'c1' });
  });

  it("another merchant's token is a 400 on card_ciphertext_id; a used token is 409 TOKEN_ALREADY_USED", async () => {
    const other = await createTenant();
    await cascade(other, ['provider_a']);
    expectFieldErrors(await charge(tenant, cardCharge(await cardToken(other))), ['card_ciphertext_id']);
    const token = await cardToken(tenant);
    expect((await charge(tenant, cardCharge(token))).status).to.equal(201);
    expectError(await charge(tenant, cardCharge(token)), 409, 'conflict_error', 'TOKEN_ALREADY_USED');
  });

  it('needs transactions:write (403) and takes an organization key with merchant_id', async () => {
    const readOnly = await keyWithScopes(tenant, ['transactions:read']);
    expectError(
      await charge(tenant, cardCharge(await cardToken(tenant)), { key: readOnly }),
      403,
      'authorization_error',
    );
    const res = await charge(tenant, cardCharge(await cardToken(tenant), { merchant_id: tenant.merchant_id }), {
      key: tenant.organization_secret_key,
    });
    expect(expectWrapped(res, 201).merchant_id).to.equal(tenant.merchant_id);
    const { merchantId } = await addMerchant(tenant);
    expect(
      (
        await charge(tenant, cardCharge(await cardToken(tenant), { merchant_id: merchantId }), {
          key: tenant.organization_secret_key,
        })
      ).status,
    ).to.equal(400);
  });

  it('charges a saved instrument; its customer becomes the transaction customer', async () => {
    const customerId = await createCustomer(tenant);
    const instrument = await saveCard(tenant, customerId, CARDS.mastercard);
    const res = await charge(tenant, {
      ...cardCharge('x'),
      card_ciphertext_id: undefined,
      payment_instrument_id: instrument.paymentInstrumentId ?? instrument.id,
    });
    const tx = expectWrapped(res, 201);
    expect(tx).to.include({ status: 'authorized', customer_id: customerId });
  });
});

describe('POST /api/v1/transactions — idempotency', () => {
  it('a replay returns the stored response with 200 and never calls the provider again', async () => {
    const tenant = await createTenant();
    await cascade(tenant, ['provider_a']);
    const key = randomUUID();
    const body = cardCharge(await cardToken(tenant));
    const first = await charge(tenant, body, { idempotencyKey: key });
    expect(first.status).to.equal(201);
    const replay = await charge(tenant, body, { idempotencyKey: key });
    expect(replay.status).to.equal(200);
    expect(replay.body.data).to.deep.equal(first.body.data);
    const calls = (await ledger({ reference: first.body.data.id })).filter((e) => e.operation === 'authorize');
    expect(calls).to.have.length(1);
    expectError(
      await charge(tenant, { ...body, amount: 1 }, { idempotencyKey: key }),
      409,
      'conflict_error',
      'IDEMPOTENCY_KEY_CONFLICT',
    );
  });

  it('50 concurrent POSTs with one key make exactly one provider charge and one transaction', async function () {
    this.timeout(60_000);
    const tenant = await createTenant();
    await cascade(tenant, ['provider_a']);
    const key = randomUUID();
    const body = cardCharge(await cardToken(tenant));
    const responses = await Promise.all(
      Array.from({ length: 50 }, () => charge(tenant, body, { idempotencyKey: key })),
    );
    for (const res of responses) expect([200, 201, 409], res.text).to.include(res.status);
    expect(responses.filter((res) => res.status === 201)).to.have.length(1);
    const ids = new Set(responses.filter((res) => res.status < 300).map((res) => res.body.data.id));
    expect(ids.size).to.equal(1);
    const [id] = [...ids];
    const charges = (await ledger({ reference: id })).filter((e) => e.operation === 'authorize' && !e.replayed);
    expect(charges).to.have.length(1);
    expect(await rows('select id from transactions where merchant_id = ?', [tenant.merchant_id])).to.have.length(1);
  });
});

describe('POST /api/v1/transactions — orders', () => {
  it('auto-creates an api order mirroring the transaction, with history pending → authorized', async () => {
    const tenant = await createTenant();
    await cascade(tenant, ['provider_a']);
    const tx = (await charge(tenant, cardCharge(await cardToken(tenant), { external_order_id: 'ext-9' }))).body.data;
    expect(tx.order_id).to.match(/^ord_/);
    const order = expectWrapped(await api.get(`/orders/${tx.order_id}`, { key: tenant.merchant_secret_key }), 200);
    expect(order).to.include({
      order_type: 'api',
      recurrence: 'none',
      status: 'authorized',
      total_amount: 1500,
      currency: 'USD',
      external_order_id: 'ext-9',
    });
    expect(order.items).to.deep.equal([]);
    expect(order.status_history.map((h: any) => [h.from_status, h.to_status, h.triggered_by])).to.deep.equal([
      [null, 'pending', 'api'],
      ['pending', 'authorized', 'system'],
    ]);
  });

  it('pays a checkout session: amount and currency come from its items (sent values ignored), checkout order with item snapshots, session completed', async () => {
    const tenant = await createTenant();
    await cascade(tenant, ['provider_a']);
    // One-time: a recurring offer is paid by card (its renewals charge the saved card).
    const { offer } = await sellableOffer(tenant, { billingCycle: 'none' });
    const session = await createSession(tenant, { offer_id: offer.id, selected_currency: 'USD' });
    const res = await charge(tenant, {
      payment_method: 'wallet',
      wallet_type: 'link',
      charge_type: 'payment',
      country: 'US',
      amount: 1,
      currency: 'EUR',
      checkout_session_id: session.id,
    });
    const tx = expectWrapped(res, 201);
    expect(tx).to.include({
      status: 'authorized',
      currency: 'USD',
      amount_authorized: 999,
      customer_id: session.customer_id,
    });
    const order = (await api.get(`/orders/${tx.order_id}`, { key: tenant.merchant_secret_key })).body.data;
    expect(order).to.include({ order_type: 'checkout', checkout_session_id: session.id, total_amount: 999 });
    expect(order.items).to.have.length(1);
    expect(order.items[0]).to.include({
      offer_id: offer.id,
      quantity: 1,
      unit_amount: 999,
      total_amount: 999,
      currency: 'USD',
      is_first_charge: false,
    });
    expect(await storedStatus(session.id)).to.equal('completed');
    const [row] = await rows('select completed_at from checkout_sessions where id = ?', [session.id]);
    expect(row.completed_at).to.not.equal(null);
  });
});
