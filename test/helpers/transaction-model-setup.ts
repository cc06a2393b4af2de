/**
 * Setup mode in the transaction model (test/api/transaction-model.test.ts): a setup-mode checkout session saves a
 * card for its customer the way the hosted "save a card" page does (a browser session for the checkout, an enrolment
 * token, POST /sessions/:id/payment-instruments), from one tab or from two at once; the merchant's server then charges
 * the saved card. What must hold: the session saves at most one card (one verified answer, one instrument), it
 * completes naming that card or stays open for another, no money moves in setup mode (no transaction, only
 * zero-amount checks at the provider, card_setup orders of 0), and the saved card's charge is an ordinary one.
 */
import { expect } from 'chai';
import { api, type ApiResponse } from './http';
import { rows } from './db';
import { ledger } from './sandbox';
import { charge } from './transactions';
import { CARDS, createCustomer, mintToken, openSession, publicHeaders } from './vault';
import type { Tenant } from './factories';

/** The cards the setup step saves, and whether the zero-amount check approves each. */
export const SETUP_CARDS = { visa: true, doNotHonor: false, declinesCharges: true } as const;
export type SetupCard = keyof typeof SETUP_CARDS;

/** How the saved card's later charge ends (the usual rules: 0341 saves, then every charge of it declines). */
export const SAVED_CARD_CHARGE: Record<SetupCard, { status: string; failureCode: string | null }> = {
  visa: { status: 'authorized', failureCode: null },
  doNotHonor: { status: 'failed', failureCode: 'do_not_honor' },
  declinesCharges: { status: 'failed', failureCode: 'do_not_honor' },
};

/** Each tab's answer, as the invariants compare it. */
const answerOf = (res: ApiResponse) =>
  res.status === 201 ? ['saved', res.body.verified] : [res.status, res.body?.error?.code];

/**
 * Saves `card` through a setup-mode checkout from `tabs` tabs at once and checks the setup invariants. `routable`:
 * the connector's circuit is closed, so the check reaches the provider (an open one may refuse the card before).
 * Returns the customer and the saved instrument (null when none was saved).
 */
export async function saveThroughSetupCheckout(
  tenant: Tenant,
  card: SetupCard,
  tabs: 1 | 2,
  routable: boolean,
): Promise<{ customerId: string; instrumentId: string | null }> {
  const key = tenant.merchant_secret_key;
  const customerId = await createCustomer(tenant);
  const created = await api.post('/checkout-sessions', {
    key,
    body: { mode: 'setup', customer_id: customerId, selected_currency: 'USD' },
  });
  expect(created.status, created.text).to.equal(201);
  const checkoutId: string = created.body.data.id;
  const pages = await Promise.all(
    Array.from({ length: tabs }, async () => {
      const session = await openSession(tenant, { checkoutSessionId: checkoutId });
      return { session, token: await mintToken(tenant, session, CARDS[card]) };
    }),
  );
  const answers = await Promise.all(
    pages.map(({ session, token }) =>
      api.post(`/sessions/${session.sessionId}/payment-instruments`, {
        headers: publicHeaders(tenant.merchant_public_key),
        body: { tokenId: token.tokenId },
      }),
    ),
  );
  const texts = answers.map((res) => res.text).join('\n');
  for (const res of answers)
    expect(answerOf(res), `a tab saving ${card} in setup mode: ${res.text}`).to.be.deep.oneOf([
      ['saved', true],
      ['saved', false],
      // The other tab's check holds the session, or has completed it.
      [409, 'CHECKOUT_SESSION_PAYMENT_IN_PROGRESS'],
      [422, 'INVALID_STATE_TRANSITION'],
      // The card-testing budgets of the page's public key (the model declines cards on purpose).
      [429, 'RATE_LIMIT_EXCEEDED'],
      // An open circuit leaves no connector to check the card on.
      ...(routable ? [] : [[422, 'NO_ELIGIBLE_CONNECTOR']]),
    ]);

  const verified = answers.filter((res) => res.status === 201 && res.body.verified);
  expect(verified, `one saved card per setup session (answers: ${texts})`).to.have.length.at.most(1);
  const instrumentId: string | null = verified[0]?.body.paymentInstrumentId ?? null;
  const instruments = await rows('select id from payment_instruments where customer_id = ?', [customerId]);
  expect(
    instruments.map((row) => row.id),
    'the customer holds exactly the card the session saved',
  ).to.deep.equal(instrumentId ? [instrumentId] : []);
  const refused = answers.every((res) => res.status === 429);
  if (routable && !refused)
    expect(instrumentId !== null, `${card} is saved iff its zero-amount check approves (answers: ${texts})`).to.equal(
      SETUP_CARDS[card],
    );

  const session = await api.get(`/checkout-sessions/${checkoutId}`, { key });
  expect(
    [session.body.data.status, session.body.data.payment_instrument_id],
    'a setup session completes naming its card, or stays open for another',
  ).to.deep.equal(instrumentId ? ['completed', instrumentId] : ['customer_identified', null]);
  await expectNoMoneyMoved(
    checkoutId,
    customerId,
    pages.map(({ token }) => token.tokenId as string),
    !!instrumentId,
  );
  return { customerId, instrumentId };
}

/** Setup mode takes no money: no transaction, card_setup orders of 0 (one authorized iff saved), zero-amount checks. */
async function expectNoMoneyMoved(
  checkoutId: string,
  customerId: string,
  tokenIds: string[],
  saved: boolean,
): Promise<void> {
  const txs = await rows('select id from transactions where customer_id = ? or checkout_session_id = ?', [
    customerId,
    checkoutId,
  ]);
  expect(txs, 'no transaction in setup mode').to.deep.equal([]);
  const orders = await rows('select order_type, total_amount, status from orders where checkout_session_id = ?', [
    checkoutId,
  ]);
  for (const order of orders)
    expect([order.order_type, Number(order.total_amount)], 'a setup order is a card_setup of 0').to.deep.equal([
      'card_setup',
      0,
    ]);
  expect(
    orders.filter((order) => order.status === 'authorized'),
    'one authorized card_setup order iff a card was saved',
  ).to.have.length(saved ? 1 : 0);
  for (const tokenId of tokenIds)
    for (const entry of await ledger({ reference: tokenId }))
      expect([entry.operation, entry.amount ?? 0], `only a zero-amount check for ${tokenId}`).to.deep.equal([
        'verify',
        0,
      ]);
}

/** The merchant's server charges the saved card (customer-initiated as any saved card it charges): the answer. */
export async function chargeSavedCard(
  tenant: Tenant,
  saved: { customerId: string; instrumentId: string },
  amount: number,
): Promise<{ id: string; status: string; failureCode: string | null }> {
  const res = await charge(tenant, {
    payment_method: 'credit_card',
    charge_type: 'payment',
    country: 'US',
    amount,
    currency: 'USD',
    customer_id: saved.customerId,
    payment_instrument_id: saved.instrumentId,
  });
  expect(res.status, `the saved card's charge: ${res.text}`).to.be.oneOf([200, 201]);
  return { id: res.body.data.id, status: res.body.data.status, failureCode: res.body.data.failure_code };
}
