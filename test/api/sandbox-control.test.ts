/**
 * The sandbox PSP's own control API and its amount-driven scenarios: the test-card listing, amounts that decide
 * non-card payments, forced outcomes for cascade tests, failing refunds, ledger filtering and scoped resets.
 */
import { expect } from 'chai';
import type { Outcome } from '../../domain/connectors/connector';
import { adapterFor } from '../../domain/connectors/registry';
import { stack } from '../helpers/stack';
import { accountOf, callFor, card, control, credentialsFor, ledger, reference } from '../helpers/sandbox';

describe('GET /_sandbox/test-cards', () => {
  it('lists every test card with its scenario, the amount scenarios and the failing refund cents', async () => {
    const { status, body } = await control('GET', '/test-cards');
    expect(status).to.equal(200);
    expect(body.cards.map((c: { scenario: string }) => c.scenario)).to.include.members([
      'approve',
      'do_not_honor',
      'insufficient_funds',
      'stolen_card',
      'lost_card',
      'expired_card',
      'invalid_number',
      'fraud',
      'processing_error',
      'timeout',
      'slow',
    ]);
    expect(body.amount_scenarios).to.deep.equal({
      51: 'do_not_honor',
      52: 'insufficient_funds',
      53: 'fraud',
      54: 'processing_error',
      55: 'timeout',
      56: 'slow',
    });
    expect(body.failing_refund_cents).to.equal(61);
  });

  it('answers unknown routes with a JSON 404', async () => {
    const response = await fetch(`${stack().sandboxUrl}/provider_a/v1/nothing-here`);
    expect(response.status).to.equal(404);
    expect(await response.json()).to.include({ error: 'not_found' });
  });
});

describe('amount-driven scenarios for pix, boleto and wallet', () => {
  const rows: { amount: number; outcome: Outcome }[] = [
    { amount: 10_000, outcome: 'pending' },
    { amount: 10_051, outcome: 'soft_decline' },
    { amount: 10_052, outcome: 'soft_decline' },
    { amount: 10_053, outcome: 'hard_decline' },
    { amount: 10_054, outcome: 'unknown' },
    { amount: 10_055, outcome: 'unknown' },
  ];
  for (const { amount, outcome } of rows) {
    it(`a provider_b pix of ${amount} (ends in ${amount % 100}) is ${outcome}`, async () => {
      const result = await adapterFor('provider_b').authorize(
        callFor('provider_b', credentialsFor('provider_b'), { timeoutMs: 400 }),
        {
          amount,
          currency: 'BRL',
          paymentMethod: 'pix',
          capture: true,
          reference: reference(),
        },
      );
      expect(result.outcome).to.equal(outcome);
    });
  }

  it('a provider_a wallet (Link) payment approves, and a wallet amount ending in 51 soft-declines', async () => {
    const adapter = adapterFor('provider_a');
    const call = callFor('provider_a', credentialsFor('provider_a'));
    expect(
      (
        await adapter.authorize(call, {
          amount: 700,
          currency: 'USD',
          paymentMethod: 'wallet',
          capture: true,
          reference: reference(),
        })
      ).outcome,
    ).to.equal('approved');
    expect(
      (
        await adapter.authorize(
          { ...call, idempotencyKey: 'other' },
          { amount: 751, currency: 'USD', paymentMethod: 'wallet', capture: true, reference: reference() },
        )
      ).outcome,
    ).to.equal('soft_decline');
  });

  it('a payment method the provider does not offer is a processing_error without any provider call', async () => {
    const ref = reference();
    const result = await adapterFor('provider_d').authorize(callFor('provider_d', credentialsFor('provider_d')), {
      amount: 1000,
      currency: 'USD',
      paymentMethod: 'pix',
      capture: true,
      reference: ref,
    });
    expect(result).to.include({ outcome: 'processing_error', rawCode: 'unsupported_payment_method' });
    expect(await ledger({ provider: 'provider_d', reference: ref })).to.have.length(0);
  });
});

describe('POST /_sandbox/overrides', () => {
  it('forces the next charge on one account to a scenario, then lets the card decide again', async () => {
    const credentials = credentialsFor('provider_a');
    const created = await control('POST', '/overrides', {
      provider: 'provider_a',
      credentials,
      scenario: 'do_not_honor',
      times: 1,
    });
    expect(created.status).to.equal(201);
    const adapter = adapterFor('provider_a');
    const charge = () =>
      adapter.authorize(callFor('provider_a', credentials), {
        amount: 1000,
        currency: 'USD',
        paymentMethod: 'card',
        capture: true,
        reference: reference(),
        card: card('4242424242424242'),
      });
    expect((await charge()).outcome).to.equal('soft_decline');
    expect((await charge()).outcome).to.equal('approved');
    // Another account is never affected.
    expect(
      (
        await adapter.authorize(callFor('provider_a', credentialsFor('provider_a')), {
          amount: 1000,
          currency: 'USD',
          paymentMethod: 'card',
          capture: true,
          reference: reference(),
          card: card('4242424242424242'),
        })
      ).outcome,
    ).to.equal('approved');
  });

  it('rejects an unknown scenario with 400', async () => {
    expect((await control('POST', '/overrides', { provider: 'provider_a', scenario: 'explode' })).status).to.equal(400);
  });
});

describe('refund results', () => {
  it('a refund amount ending in 61 fails at once on a synchronous provider (hard decline)', async () => {
    const credentials = credentialsFor('provider_a');
    const adapter = adapterFor('provider_a');
    const paid = await adapter.authorize(callFor('provider_a', credentials), {
      amount: 5000,
      currency: 'USD',
      paymentMethod: 'card',
      capture: true,
      reference: reference(),
      card: card('4242424242424242'),
    });
    const refund = await adapter.refund(callFor('provider_a', credentials), {
      providerReference: paid.providerReference!,
      amount: 1061,
      currency: 'USD',
      reference: reference(),
    });
    expect(refund).to.include({ outcome: 'hard_decline', rawCode: 'declined' });
  });

  it('a refund amount ending in 61 is accepted, then fails by webhook event on an asynchronous provider', async () => {
    const credentials = credentialsFor('checkout');
    const adapter = adapterFor('checkout');
    const paid = await adapter.authorize(callFor('checkout', credentials), {
      amount: 5000,
      currency: 'USD',
      paymentMethod: 'card',
      capture: true,
      reference: reference(),
      card: card('4242424242424242'),
    });
    const refundReference = reference();
    const refund = await adapter.refund(callFor('checkout', credentials), {
      providerReference: paid.providerReference!,
      amount: 1061,
      currency: 'USD',
      reference: refundReference,
    });
    expect(refund.outcome).to.equal('pending');
    await new Promise((resolve) => setTimeout(resolve, 100));
    const events = (await control('GET', `/events?reference=${refundReference}`)).body.data;
    expect(events.map((event: { type: string }) => event.type)).to.deep.equal(['refund.failed']);
  });
});

describe('GET /_sandbox/ledger and POST /_sandbox/reset', () => {
  it('filters by account, and a reset scoped to one reference forgets only that reference', async () => {
    const credentials = credentialsFor('checkout');
    const adapter = adapterFor('checkout');
    const [kept, dropped] = [reference(), reference()];
    for (const ref of [kept, dropped]) {
      await adapter.authorize(callFor('checkout', credentials), {
        amount: 100,
        currency: 'USD',
        paymentMethod: 'card',
        capture: true,
        reference: ref,
        card: card('4242424242424242'),
      });
    }
    const account = await accountOf('checkout', credentials);
    expect(await ledger({ provider: 'checkout', account })).to.have.length(2);
    const reset = await control('POST', '/reset', { reference: dropped });
    expect(reset.body).to.deep.equal({ removed_ledger_entries: 1 });
    const left = await ledger({ provider: 'checkout', account });
    expect(left.map((entry) => entry.reference)).to.deep.equal([kept]);
  });

  it('records refused calls too: bad credentials are ledgered as rejected with no account', async () => {
    const ref = reference();
    await adapterFor('provider_b').authorize(
      callFor('provider_b', { username: 'ws_invalid', password: 'password-1', merchant_account: 'M1' }),
      {
        amount: 100,
        currency: 'BRL',
        paymentMethod: 'card',
        capture: true,
        reference: ref,
        card: card('4242424242424242'),
      },
    );
    const entries = (await ledger({ provider: 'provider_b' })).filter((entry) => entry.reason === 'unauthorized');
    expect(entries.length).to.be.greaterThan(0);
    expect(
      entries.every((entry) => entry.account === null && entry.outcome === 'rejected' && entry.http_status === 401),
    ).to.equal(true);
  });
});

describe('POST /_sandbox/webhook-endpoints', () => {
  it('registers by credentials, shows the account and never echoes the URL token or the secret', async () => {
    const credentials = credentialsFor('provider_d');
    const response = await control('POST', '/webhook-endpoints', {
      provider: 'provider_d',
      credentials,
      url: 'http://127.0.0.1:1/hook?token=s3cr3t',
      secret: 'A'.repeat(128),
    });
    expect(response.status).to.equal(201);
    expect(response.body.account).to.equal(credentials.api_login_id);
    expect(JSON.stringify(response.body)).to.not.include('s3cr3t');
    const listed = await control(
      'GET',
      `/webhook-endpoints?provider=provider_d&account=${String(credentials.api_login_id)}`,
    );
    expect(JSON.stringify(listed.body)).to.not.include('s3cr3t').and.not.include('AAAA');
    expect((await control('DELETE', `/webhook-endpoints/${response.body.id}`)).status).to.equal(204);
  });

  it('rejects an unknown provider, a missing URL or a missing secret with 400', async () => {
    expect(
      (await control('POST', '/webhook-endpoints', { provider: 'nope', account: 'x', url: 'http://x', secret: 's' }))
        .status,
    ).to.equal(400);
    expect(
      (await control('POST', '/webhook-endpoints', { provider: 'provider_a', account: 'x', secret: 's' })).status,
    ).to.equal(400);
    expect(
      (await control('POST', '/webhook-endpoints', { provider: 'provider_a', account: 'x', url: 'http://x' })).status,
    ).to.equal(400);
  });
});
