/**
 * Rules for provider_d (Authorize.net-like), through the API on a two-connector route
 * (the first one under test, checkout second):
 * - an unknown outcome (no answer, a 5xx) after the first provider charged is resolved by its lookup: the charge is
 *   found, the transaction is authorized, no second provider is called, the customer is charged once;
 * - when the first provider never processed the request, the lookup says so and the cascade moves on safely.
 * And for provider_d, reads that exist at Authorize.net: `retrieve` is getTransactionDetailsRequest (a payment held
 * for review reads pending, then approved once settled), and a capture or void is looked up in the authorization's
 * own status.
 */
import { expect } from 'chai';
import { adapterFor } from '../../domain/connectors/registry';
import { createTenant, type Tenant } from '../helpers/factories';
import { callFor, card, control, credentialsFor, ledger, reference, type LedgerEntry } from '../helpers/sandbox';
import { cardCharge, cardToken, cascade, charge, override, type CascadeConnector } from '../helpers/transactions';

const NO_ANSWER = { number: '4000000000000408', cvc: '123', brand: 'visa' };
const SERVER_ERROR = { number: '4000000000000119', cvc: '123', brand: 'visa' };
const SUCCESSFUL = ['approved', 'authorized'];

/** First-time (not replayed) authorizations a provider processed successfully, for this transaction. */
const charges = async (transactionId: string): Promise<LedgerEntry[]> =>
  (await ledger({ reference: transactionId })).filter(
    (entry) => entry.operation === 'authorize' && !entry.replayed && SUCCESSFUL.includes(entry.outcome),
  );

// provider_b (Adyen) has no read to find the charge by: test/api/connector-lookups-by-reference.test.ts.
for (const slug of ['provider_d'] as const) {
  describe(`${slug}: an unknown outcome is resolved by the lookup, never by the next connector`, () => {
    let tenant: Tenant;
    let connectors: CascadeConnector[];

    beforeEach(async () => {
      tenant = await createTenant();
      connectors = await cascade(tenant, [slug, 'checkout']);
      // Were the cascade to move on, the second provider would charge the customer whatever the card.
      await override(connectors[1], 'approve');
    });

    async function chargeWith(number: typeof NO_ANSWER) {
      const res = await charge(tenant, cardCharge(await cardToken(tenant, number)));
      expect(res.status, res.text).to.equal(201);
      return res.body.data;
    }

    it(`a timeout after ${slug} charged: found by the lookup, authorized, charged once, no second provider`, async function () {
      this.timeout(60_000);
      await override(connectors[0], 'approved_no_answer', 1);
      const tx = await chargeWith(NO_ANSWER);
      const charged = await charges(tx.id);
      expect(charged.map((entry) => entry.provider)).to.deep.equal([slug]);
      expect(tx.status).to.equal('authorized');
      expect(tx.timeline.map((a: any) => [a.connector_id, a.status])).to.deep.equal([[connectors[0].id, 'success']]);
    });

    it(`a 5xx after ${slug} charged: found by the lookup, charged once, no second provider`, async () => {
      await override(connectors[0], 'approved_server_error', 1);
      const tx = await chargeWith(SERVER_ERROR);
      expect((await charges(tx.id)).map((entry) => entry.provider)).to.deep.equal([slug]);
      expect(tx.status).to.equal('authorized');
      expect(tx.timeline.map((a: any) => [a.connector_id, a.status])).to.deep.equal([[connectors[0].id, 'success']]);
    });

    it(`a timeout where ${slug} processed nothing: the lookup says so, one charge at the second connector`, async function () {
      this.timeout(60_000);
      const tx = await chargeWith(NO_ANSWER);
      expect((await charges(tx.id)).map((entry) => entry.provider)).to.deep.equal(['checkout']);
      expect(tx.status).to.equal('authorized');
      expect(tx.timeline.map((a: any) => [a.status, a.error_category])).to.deep.equal([
        ['error', 'network_error'],
        ['success', null],
      ]);
    });
  });
}

describe('provider_d: reads Authorize.net offers (getTransactionDetails, the unsettled list)', () => {
  const adapter = adapterFor('provider_d');

  const setup = () => callFor('provider_d', credentialsFor('provider_d'), { timeoutMs: 300 });

  const authorize = (call: ReturnType<typeof setup>, capture: boolean) =>
    adapter.authorize(call, {
      amount: 2500,
      currency: 'USD',
      paymentMethod: 'card',
      capture,
      reference: reference(),
      card: card('4242424242424242'),
    });

  it('retrieve reads a payment held for review as pending, and as approved once the provider settles it', async () => {
    const call = setup();
    const forced = await control('POST', '/overrides', {
      provider: 'provider_d',
      credentials: call.credentials,
      scenario: 'review',
      times: 1,
    });
    expect(forced.status, JSON.stringify(forced.body)).to.equal(201);
    const held = await authorize(call, true);
    expect(held.outcome).to.equal('pending');
    const providerReference = held.providerReference!;
    expect((await adapter.retrieve!(call, { providerReference })).outcome).to.equal('pending');
    const settled = await control('POST', `/payments/${providerReference}/settle`, {});
    expect(settled.status, JSON.stringify(settled.body)).to.be.within(200, 299);
    expect(await adapter.retrieve!(call, { providerReference })).to.include({ outcome: 'approved', providerReference });
  });

  it('retrieve of a transaction the provider does not know is a processing error, never approved', async () => {
    const read = await adapter.retrieve!(setup(), { providerReference: '99999999999' });
    expect(read).to.include({ outcome: 'processing_error', rawCode: 'E00040' });
  });

  it('a capture processed without an answer is found in the authorization status; one not processed is not_found', async () => {
    const call = setup();
    const authorized = await authorize(call, false);
    expect(authorized.outcome).to.equal('approved');
    const providerReference = authorized.providerReference!;
    const captureCall = { ...call, idempotencyKey: `${call.idempotencyKey}:capture` };
    expect(
      await adapter.lookup(captureCall, { operation: 'capture', providerReference, reference: 'tx_real_reads' }),
    ).to.deep.equal({
      status: 'not_found',
    });
    const forced = await control('POST', '/overrides', {
      provider: 'provider_d',
      credentials: call.credentials,
      operation: 'capture',
      scenario: 'approved_server_error',
      times: 1,
    });
    expect(forced.status, JSON.stringify(forced.body)).to.equal(201);
    expect((await adapter.capture(captureCall, { providerReference, amount: 2500, currency: 'USD' })).outcome).to.equal(
      'unknown',
    );
    const looked = await adapter.lookup(captureCall, {
      operation: 'capture',
      providerReference,
      reference: 'tx_real_reads',
    });
    expect(looked.status === 'found' && looked.result.outcome).to.equal('approved');
  });

  it('a refund is found in the unsettled list by the invoice number it was sent with', async () => {
    const call = setup();
    const captured = await authorize(call, true);
    const providerReference = captured.providerReference!;
    const refundCall = { ...call, idempotencyKey: `${call.idempotencyKey}:refund` };
    expect(
      await adapter.lookup(refundCall, { operation: 'refund', providerReference, reference: 'ref_real_reads' }),
    ).to.deep.equal({
      status: 'not_found',
    });
    const refunded = await adapter.refund(refundCall, {
      providerReference,
      amount: 1000,
      currency: 'USD',
      reference: 'rf_lookup',
    });
    expect(refunded.outcome).to.equal('approved');
    const looked = await adapter.lookup(refundCall, {
      operation: 'refund',
      providerReference,
      reference: 'ref_real_reads',
    });
    expect(looked.status === 'found' && [looked.result.outcome, looked.result.providerReference]).to.deep.equal([
      'approved',
      refunded.providerReference,
    ]);
  });
});

describe('provider_a: a lookup while the original charge is still being confirmed', () => {
  it('is unknown (the intent requires_confirmation in the recent list), never not_found: no cascade mid-flight', async () => {
    const adapter = adapterFor('provider_a');
    const call = callFor('provider_a', credentialsFor('provider_a'), { timeoutMs: 300 });
    const forced = await control('POST', '/overrides', {
      provider: 'provider_a',
      credentials: call.credentials,
      scenario: 'slow',
      times: 1,
    });
    expect(forced.status, JSON.stringify(forced.body)).to.equal(201);
    const sent = await adapter.authorize(call, {
      amount: 2500,
      currency: 'USD',
      paymentMethod: 'card',
      capture: true,
      reference: reference(),
      card: card('4242424242424242'),
    });
    expect(sent.outcome).to.equal('unknown');
    expect(await adapter.lookup(call, { operation: 'authorize', reference: 'tx_in_flight' })).to.deep.equal({
      status: 'unknown',
      rawCode: 'in_progress',
    });
  });
});
