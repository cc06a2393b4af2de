/**
 * A checkout session takes one payment: charging it claims it before any provider is called, so a second payment
 * started while the first is under way — another Idempotency-Key, the hosted page's confirm — is refused with 409
 * CHECKOUT_SESSION_PAYMENT_IN_PROGRESS and never reaches a provider. A payment that took no money gives the claim
 * back: the buyer may pay again.
 */
import { expect } from 'chai';
import { api, type ApiResponse } from '../helpers/http';
import { createTenant, type Tenant } from '../helpers/factories';
import { expectError } from '../helpers/envelope';
import { createSession } from '../helpers/checkout';
import { createOffer } from '../helpers/catalog';
import { rows } from '../helpers/db';
import { accountOf, ledger } from '../helpers/sandbox';
import { cascade, charge, override, type CascadeConnector } from '../helpers/transactions';
import { CARDS, createCustomer, mintToken, openSession, publicHeaders, saveCard } from '../helpers/vault';

const savedCardCharge = (checkoutId: string, instrumentId: string) => ({
  payment_method: 'credit_card',
  charge_type: 'payment',
  country: 'US',
  checkout_session_id: checkoutId,
  payment_instrument_id: instrumentId,
});

describe('A checkout session takes one payment', function () {
  this.timeout(90_000);
  let tenant: Tenant;
  let connector: CascadeConnector;
  let customerId: string;
  let instrumentId: string;
  before(async () => {
    tenant = await createTenant();
    [connector] = await cascade(tenant, ['provider_a']);
    customerId = await createCustomer(tenant);
    instrumentId = (await saveCard(tenant, customerId, CARDS.visa)).id;
  });

  /** A one-time checkout of 999 USD for the customer (named by id, so its saved card may pay it). */
  async function checkout(): Promise<string> {
    const { offer } = await createOffer(tenant.merchant_id, { billingCycle: 'none' });
    return (await createSession(tenant, { offer_id: offer.id, customer_id: customerId, selected_currency: 'USD' })).id;
  }

  /** Authorizations the sandbox recorded for this tenant's connector (replays of one key not counted). */
  async function authorizations(): Promise<string[]> {
    const entries = await ledger({
      provider: 'provider_a',
      account: await accountOf('provider_a', connector.credentials),
    });
    return entries.filter((e) => e.operation === 'authorize' && !e.replayed).map((e) => e.reference!);
  }

  const ordersOf = (checkoutId: string) => rows('select id from orders where checkout_session_id = ?', [checkoutId]);

  /** Of two answers, the one that paid and the one refused as a payment in progress. */
  function oneWinner(checkoutId: string, answers: ApiResponse[], paid: (res: ApiResponse) => boolean): ApiResponse {
    const winners = answers.filter(paid);
    expect(winners, answers.map((a) => a.text).join('\n')).to.have.length(1);
    const loser = answers.find((a) => a !== winners[0])!;
    const error = expectError(loser, 409, 'conflict_error', 'CHECKOUT_SESSION_PAYMENT_IN_PROGRESS');
    expect(error.details).to.include({ checkout_session_id: checkoutId });
    return winners[0];
  }

  it('two concurrent POST /transactions with a saved card and different Idempotency-Keys: one is charged, the other is 409 and reaches no provider', async () => {
    const checkoutId = await checkout();
    const before = await authorizations();
    const answers = await Promise.all([
      charge(tenant, savedCardCharge(checkoutId, instrumentId)),
      charge(tenant, savedCardCharge(checkoutId, instrumentId)),
    ]);
    const winner = oneWinner(checkoutId, answers, (res) => res.status === 201);
    expect(winner.body.data).to.include({ status: 'authorized', amount: 999 });
    const charged = (await authorizations()).filter((ref) => !before.includes(ref));
    expect(charged).to.deep.equal([winner.body.data.id]);
    expect(await ordersOf(checkoutId)).to.have.length(1);
    const [session] = await rows('select status from checkout_sessions where id = ?', [checkoutId]);
    expect(session.status).to.equal('completed');
  });

  it('a payment that took no money gives the checkout back: the buyer pays it again, and that payment is charged', async () => {
    const checkoutId = await checkout();
    await override(connector, 'do_not_honor', 1);
    const declined = await charge(tenant, savedCardCharge(checkoutId, instrumentId));
    expect(declined.status, declined.text).to.equal(201);
    expect(declined.body.data.status).to.equal('failed');
    const paid = await charge(tenant, savedCardCharge(checkoutId, instrumentId));
    expect(paid.status, paid.text).to.equal(201);
    expect(paid.body.data.status).to.equal('authorized');
    const [session] = await rows('select status from checkout_sessions where id = ?', [checkoutId]);
    expect(session.status).to.equal('completed');
  });

  it('the hosted page confirm racing a server-side saved-card payment: one is charged, the other is 409 and reaches no provider', async () => {
    const checkoutId = await checkout();
    const browser = await openSession(tenant, { checkoutSessionId: checkoutId });
    await mintToken(tenant, browser, CARDS.mastercard, { purpose: 'one_time' });
    const before = await authorizations();
    const answers = await Promise.all([
      api.post(`/sessions/${browser.sessionId}/checkout/confirm`, {
        headers: publicHeaders(tenant.merchant_public_key),
        body: {},
      }),
      charge(tenant, savedCardCharge(checkoutId, instrumentId)),
    ]);
    const winner = oneWinner(
      checkoutId,
      answers,
      (res) => (res.status === 200 && res.body.outcome === 'succeeded') || res.status === 201,
    );
    const winnerId = winner.status === 200 ? winner.body.transactionId : winner.body.data.id;
    expect((await authorizations()).filter((ref) => !before.includes(ref))).to.deep.equal([winnerId]);
    expect(await ordersOf(checkoutId)).to.have.length(1);
  });
});
