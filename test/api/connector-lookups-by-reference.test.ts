/**
 * Lookups with only what the real providers offer, against the sandbox that mirrors them:
 * - provider_b (Adyen) has no read: an unknown charge is answered with a technical cancel by our merchant reference
 *   (`POST /v71/cancels`); only an authorization known to be uncaptured (or a verification) then counts as not
 *   charged; a maybe-captured charge stays unknown, and never cascades to the next connector;
 * - provider_c (Mercado Pago) finds payments by `GET /v1/payments/search?external_reference=`, and refunds in the
 *   payment's refunds list; checkout (Checkout.com) by `GET /payments?reference=` and the payment's actions;
 * - a refund answered pending settles by reading it again (what the refund poller does), without any webhook.
 */
import { expect } from 'chai';
import type { AuthorizeRequest, LookupResult, ProviderCall } from '../../domain/connectors/connector';
import { adapterFor } from '../../domain/connectors/registry';
import { createTenant, type Tenant } from '../helpers/factories';
import {
  accountOf,
  callFor,
  card,
  control,
  credentialsFor,
  currencyFor,
  ledger,
  reference,
  type Slug,
} from '../helpers/sandbox';
import { cardCharge, cardToken, cascade, charge, override, type CascadeConnector } from '../helpers/transactions';
import { stack } from '../helpers/stack';
import { resolutionOf } from '../helpers/charge-resolution';

/** Asks again (no sleep: the sandbox decides asynchronous refunds on its next timer tick) until decided. */
async function decided(read: () => Promise<LookupResult>): Promise<LookupResult> {
  let looked = await read();
  const open = (result: LookupResult) => result.status !== 'found' || result.result.outcome === 'pending';
  for (let asks = 1; open(looked) && asks < 50; asks += 1) {
    await new Promise((resolve) => setImmediate(resolve));
    looked = await read();
  }
  return looked;
}

const setup = (slug: Slug) => callFor(slug, credentialsFor(slug), { timeoutMs: 300 });

const forceOn = async (slug: Slug, call: ProviderCall, scenario: string, operation = 'authorize') => {
  const res = await control('POST', '/overrides', {
    provider: slug,
    credentials: call.credentials,
    scenario,
    operation,
    times: 1,
  });
  expect(res.status, JSON.stringify(res.body)).to.equal(201);
};

const cardRequest = (slug: Slug, ref: string, capture: boolean, number = '4242424242424242'): AuthorizeRequest => ({
  amount: 2500,
  currency: currencyFor(slug),
  paymentMethod: 'card',
  capture,
  reference: ref,
  card: card(number),
});

describe('the sandbox offers no lookup by idempotency key, as no real provider does', () => {
  const basic = (credentials: Record<string, unknown>) =>
    `Basic ${Buffer.from(`${String(credentials.username)}:${String(credentials.password)}`).toString('base64')}`;

  for (const slug of ['provider_b', 'provider_c', 'checkout'] as const) {
    it(`${slug}: a key the provider processed cannot be read back by key (404, no such endpoint)`, async () => {
      const call = setup(slug);
      const sent = await adapterFor(slug).authorize(call, cardRequest(slug, reference(), true));
      expect(sent.outcome).to.equal('approved');
      const credentials = call.credentials;
      const key = encodeURIComponent(call.idempotencyKey);
      const res =
        slug === 'provider_b'
          ? await fetch(`${call.baseUrl}/v71/payments/lookup`, {
              method: 'POST',
              headers: { 'content-type': 'application/json', authorization: basic(credentials) },
              body: JSON.stringify({
                merchantAccount: credentials.merchant_account,
                idempotencyKey: call.idempotencyKey,
              }),
            })
          : await fetch(
              `${call.baseUrl}${slug === 'provider_c' ? `/v1/idempotency_keys/${key}` : `/idempotency-keys/${key}`}`,
              {
                headers: {
                  authorization: `Bearer ${String(slug === 'provider_c' ? credentials.access_token : credentials.secret_key)}`,
                },
              },
            );
      expect(res.status).to.equal(404);
    });
  }
});

describe('provider_b (Adyen): an unknown charge is answered by a technical cancel, never read', () => {
  const adapter = adapterFor('provider_b');

  it('an authorization known to be uncaptured is cancelled by its merchant reference and counts as not charged', async () => {
    const call = setup('provider_b');
    const ref = reference();
    await forceOn('provider_b', call, 'approved_no_answer');
    expect((await adapter.authorize(call, cardRequest('provider_b', ref, false))).outcome).to.equal('unknown');
    const looked = await adapter.lookup(call, { operation: 'authorize', reference: ref, capture: false });
    expect(looked).to.deep.equal({ status: 'not_found' });
    const account = await accountOf('provider_b', call.credentials);
    const cancels = await ledger({ provider: 'provider_b', account, operation: 'void', reference: ref });
    expect(cancels.map((entry) => [entry.outcome, entry.reason])).to.deep.equal([['approved', 'technical_cancel']]);
    const [authorized] = await ledger({ provider: 'provider_b', account, operation: 'authorize', reference: ref });
    const payment = await control('GET', `/payments/${authorized.provider_reference}`);
    expect(payment.body.state).to.equal('voided');
  });

  it('a repeated lookup sends the same technical cancel (its own idempotency key): cancelled once', async () => {
    const call = setup('provider_b');
    const ref = reference();
    await forceOn('provider_b', call, 'approved_no_answer');
    await adapter.authorize(call, cardRequest('provider_b', ref, false));
    for (let i = 0; i < 2; i += 1)
      expect(await adapter.lookup(call, { operation: 'authorize', reference: ref, capture: false })).to.deep.equal({
        status: 'not_found',
      });
    const account = await accountOf('provider_b', call.credentials);
    const cancels = await ledger({ provider: 'provider_b', account, operation: 'void', reference: ref });
    expect(cancels.map((entry) => entry.replayed)).to.deep.equal([false, true]);
  });

  it('a charge that may have been auto-captured stays unknown after the cancel (a capture cannot be cancelled)', async () => {
    const call = setup('provider_b');
    const ref = reference();
    await forceOn('provider_b', call, 'approved_no_answer');
    await adapter.authorize(call, cardRequest('provider_b', ref, true));
    for (const capture of [true, undefined])
      expect(await adapter.lookup(call, { operation: 'authorize', reference: ref, capture })).to.deep.equal({
        status: 'unknown',
        rawCode: 'technical_cancel_received',
      });
  });

  it('a lookup without our reference cannot tell (unknown), never not_found', async () => {
    const call = setup('provider_b');
    expect(await adapter.lookup(call, { operation: 'authorize', reference: '', capture: false })).to.deep.equal({
      status: 'unknown',
      rawCode: 'lookup_without_reference',
    });
  });

  it('captures, voids and refunds cannot be read at Adyen: unknown, nothing sent', async () => {
    const call = setup('provider_b');
    for (const operation of ['capture', 'void', 'refund'] as const)
      expect(
        await adapter.lookup(call, { operation, providerReference: 'PSP0000000000001', reference: 'tx_any' }),
      ).to.deep.equal({
        status: 'unknown',
        rawCode: 'no_read_at_provider',
      });
  });

  describe('through the API: an unknown outcome at provider_b never cascades', () => {
    let tenant: Tenant;
    let connectors: CascadeConnector[];

    beforeEach(async () => {
      tenant = await createTenant();
      connectors = await cascade(tenant, ['provider_b', 'checkout']);
      // Were the cascade to move on, the second provider would charge the customer whatever the card.
      await override(connectors[1], 'approve');
    });

    it('a 5xx after provider_b charged: technical cancel issued, the attempt stays unknown (pending, its resolution waiting), no second provider', async () => {
      await override(connectors[0], 'approved_server_error', 1);
      const res = await charge(
        tenant,
        cardCharge(await cardToken(tenant, { number: '4000000000000119', cvc: '123', brand: 'visa' })),
      );
      expect(res.status, res.text).to.equal(201);
      const tx = res.body.data;
      const charged = (await ledger({ reference: tx.id })).filter(
        (entry) => entry.operation === 'authorize' && !entry.replayed && entry.outcome !== 'error',
      );
      expect(charged.map((entry) => entry.provider)).to.deep.equal(['provider_b']);
      const cancels = (await ledger({ reference: tx.id })).filter((entry) => entry.operation === 'void');
      expect(cancels.map((entry) => entry.provider)).to.include('provider_b');
      expect(tx.status).to.equal('pending');
      expect(tx.timeline.map((a: any) => a.connector_id)).to.deep.equal([connectors[0].id]);
      const attempts = await stack()
        .orm.em.fork()
        .execute<Array<{ error_code: string }>>(
          `select error_code from transaction_attempts where transaction_id = ?`,
          [tx.id],
        );
      expect(attempts.map((row) => row.error_code)).to.deep.equal(['provider_outcome_unknown']);
      expect((await resolutionOf(tx.id).describe()).status.name).to.equal('RUNNING');
    });
  });
});

for (const slug of ['provider_c', 'checkout'] as const) {
  describe(`${slug}: lookups by our reference (what the provider offers)`, () => {
    const adapter = adapterFor(slug);

    it('of several payments under one reference, finds the one sent under this key', async () => {
      const ref = reference();
      const first = setup(slug);
      const declined = await adapter.authorize(first, cardRequest(slug, ref, true, '4000000000000002'));
      const second = { ...first, idempotencyKey: `${first.idempotencyKey}-2` };
      await forceOn(slug, second, 'approved_no_answer');
      expect((await adapter.authorize(second, cardRequest(slug, ref, true))).outcome).to.equal('unknown');
      const looked = await adapter.lookup(second, { operation: 'authorize', reference: ref });
      expect(looked.status === 'found' && looked.result.outcome).to.equal('approved');
      const again = await adapter.lookup(first, { operation: 'authorize', reference: ref });
      expect(again.status === 'found' && again.result.providerReference).to.equal(declined.providerReference);
      const third = { ...first, idempotencyKey: `${first.idempotencyKey}-3` };
      expect(await adapter.lookup(third, { operation: 'authorize', reference: ref })).to.deep.equal({
        status: 'not_found',
      });
    });

    it('a capture is read on the payment: not processed while only authorized, found once captured', async () => {
      const call = setup(slug);
      const paymentRef = reference();
      const authorized = await adapter.authorize(call, cardRequest(slug, paymentRef, false));
      expect(authorized.outcome).to.equal('approved');
      const providerReference = authorized.providerReference!;
      const captureCall = { ...call, idempotencyKey: `${call.idempotencyKey}:capture` };
      expect(
        await adapter.lookup(captureCall, { operation: 'capture', providerReference, reference: paymentRef }),
      ).to.deep.equal({
        status: 'not_found',
      });
      await adapter.capture(captureCall, { providerReference, amount: 2500, currency: currencyFor(slug) });
      const looked = await adapter.lookup(captureCall, {
        operation: 'capture',
        providerReference,
        reference: paymentRef,
      });
      expect(looked.status === 'found' && looked.result.outcome).to.equal('approved');
    });

    it('a refund is read as it stands now: decided without any webhook (refunded, or refused for cents 61)', async () => {
      for (const [amount, outcome] of [
        [1000, 'approved'],
        [1061, 'hard_decline'],
      ] as const) {
        const call = setup(slug);
        const captured = await adapter.authorize(call, cardRequest(slug, reference(), true));
        const providerReference = captured.providerReference!;
        const refundRef = `ref_${reference().replace(/[^A-Za-z0-9]/g, '')}`;
        const refundCall = { ...call, idempotencyKey: `refund-${refundRef}` };
        const refunded = await adapter.refund(refundCall, {
          providerReference,
          amount,
          currency: currencyFor(slug),
          reference: refundRef,
        });
        expect(['pending', outcome]).to.include(refunded.outcome);
        // The refund poller's call: the refund's own key, the payment, the refund's reference. A refund
        // the provider has not decided yet is no action/refund to read: asked again until decided, as the poller does.
        const looked = await decided(() =>
          adapter.lookup(refundCall, { operation: 'refund', providerReference, reference: refundRef }),
        );
        expect(looked.status === 'found' && looked.result.outcome, JSON.stringify(looked)).to.equal(outcome);
      }
    });
  });
}

describe('provider_a: a refund Stripe answers pending settles by reading it, without any webhook', () => {
  it('pending when answered; the lookup the refund poller makes finds it refunded', async () => {
    const adapter = adapterFor('provider_a');
    const call = setup('provider_a');
    const captured = await adapter.authorize(call, cardRequest('provider_a', reference(), true));
    expect(captured.outcome).to.equal('approved');
    const providerReference = captured.providerReference!;
    const refundCall = { ...call, idempotencyKey: `${call.idempotencyKey}:refund` };
    await forceOn('provider_a', call, 'review', 'refund');
    const refunded = await adapter.refund(refundCall, {
      providerReference,
      amount: 1000,
      currency: 'USD',
      reference: 'ref_pending',
    });
    expect(refunded.outcome).to.equal('pending');
    // No webhook endpoint is registered for this account: nothing but the read can tell.
    const looked = await decided(() =>
      adapter.lookup(refundCall, { operation: 'refund', providerReference, reference: 'ref_pending' }),
    );
    expect(looked.status === 'found' && [looked.result.outcome, looked.result.providerReference]).to.deep.equal([
      'approved',
      refunded.providerReference,
    ]);
  });
});

describe('checkout: a payment held pending that lapses or is declined, read without a webhook', () => {
  const adapter = adapterFor('checkout');

  async function held() {
    const call = setup('checkout');
    await forceOn('checkout', call, 'review');
    const sent = await adapter.authorize(call, cardRequest('checkout', reference(), true));
    expect(sent.outcome).to.equal('pending');
    return { call, providerReference: sent.providerReference! };
  }

  it('one that lapsed reads Expired in rawMessage (settlement ends it expired, not failed)', async () => {
    const { call, providerReference } = await held();
    expect((await control('POST', `/payments/${providerReference}/expire`, {})).status).to.be.lessThan(300);
    expect(await adapter.retrieve!(call, { providerReference })).to.include({
      outcome: 'soft_decline',
      rawMessage: 'Expired',
    });
  });

  it('one declined after pending keeps the provider response code as its code', async () => {
    const { call, providerReference } = await held();
    expect((await control('POST', `/payments/${providerReference}/fail`, {})).status).to.be.lessThan(300);
    expect(await adapter.retrieve!(call, { providerReference })).to.include({
      outcome: 'soft_decline',
      rawCode: '20005',
    });
  });
});
