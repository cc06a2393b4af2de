/**
 * The hosted checkout never tells the buyer "nothing was charged" when nobody knows: a payment whose provider call
 * got no answer the provider's lookup could settle (provider_outcome_unknown) is pending while the charge's own
 * resolution asks again, and once that gives up at its horizon (failed, left to the reconciler) it is shown as in
 * doubt — we are checking with the bank, do not pay again yet — on the page's read.
 */
import { expect } from 'chai';
import { api } from '../helpers/http';
import { createTenant, type Tenant } from '../helpers/factories';
import { createSession } from '../helpers/checkout';
import { createOffer } from '../helpers/catalog';
import { control } from '../helpers/sandbox';
import { pastResolutionHorizon } from '../helpers/charge-resolution';
import { cascade, override, type CascadeConnector } from '../helpers/transactions';
import { CARDS, mintToken, openSession, publicHeaders } from '../helpers/vault';

describe('The hosted checkout when a payment is in doubt', function () {
  this.timeout(60_000);
  let tenant: Tenant;
  let connector: CascadeConnector;
  before(async () => {
    tenant = await createTenant();
    [connector] = await cascade(tenant, ['provider_a']);
  });

  it('a payment the provider may have taken without answering is pending while its charge asks again, then "in doubt" past the horizon, never "nothing was charged"', async () => {
    const { offer } = await createOffer(tenant.merchant_id, { billingCycle: 'none' });
    const checkout = await createSession(tenant, { offer_id: offer.id, selected_currency: 'USD' });
    const browser = await openSession(tenant, { checkoutSessionId: checkout.id });
    await mintToken(tenant, browser, CARDS.visa, { purpose: 'one_time' });
    // The provider charges and answers 5xx, and its lookup cannot tell either: the outcome stays unknown.
    await override(connector, 'approved_server_error', 1);
    const lookup = await control('POST', '/overrides', {
      provider: 'provider_a',
      credentials: connector.credentials,
      operation: 'lookup',
      scenario: 'processing_error',
      times: 1,
    });
    expect(lookup.status, JSON.stringify(lookup.body)).to.equal(201);

    const res = await api.post(`/sessions/${browser.sessionId}/checkout/confirm`, {
      headers: publicHeaders(tenant.merchant_public_key),
      body: {},
    });
    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.include({ outcome: 'pending', declineType: null, message: null });
    const pending = await api.get('/sessions/checkout', {
      headers: publicHeaders(tenant.merchant_public_key, browser.sessionId),
    });
    expect(pending.body.payment).to.include({ transactionId: res.body.transactionId, outcome: 'pending' });

    // The resolution found no answer by its horizon: the transaction failed with its attempt still unresolved.
    await pastResolutionHorizon(res.body.transactionId);
    const page = await api.get('/sessions/checkout', {
      headers: publicHeaders(tenant.merchant_public_key, browser.sessionId),
    });
    expect(page.status, page.text).to.equal(200);
    expect(page.body.payment).to.include({
      transactionId: res.body.transactionId,
      outcome: 'in_doubt',
      declineType: null,
    });
    expect(page.body.payment.message).to.match(/checking/i);
    expect(page.body.payment.message).to.not.match(/nothing was charged/i);
  });
});
