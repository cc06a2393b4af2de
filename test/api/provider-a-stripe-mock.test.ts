/**
 * Rule: every request provider_a's adapter sends is one Stripe's API accepts. stripe-mock (Stripe's mock server,
 * generated from Stripe's OpenAPI spec; built and cached by scripts/lib/stripe-mock.ts) validates each request's
 * path, method and parameters and answers 400/404 for anything the real API would refuse, so an adapter request
 * builder that drifts from Stripe fails here, whatever our sandbox accepts. stripe-mock is stateless (it answers
 * fixtures), so the checks are on acceptance and on the response shapes the adapter reads, not on outcomes.
 */
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import type { LookupResult, ProviderCall, ProviderResult } from '../../domain/connectors/connector';
import { callProvider } from '../../domain/connectors/http';
import { providerAAdapter } from '../../domain/connectors/provider_a/adapter';
import { startStripeMock, type RunningStripeMock } from '../../scripts/lib/stripe-mock';

const CARD = { number: '4242424242424242', cvc: '123', expMonth: 12, expYear: 2034, holderName: 'Ada Lovelace' };

describe('provider_a adapter against stripe-mock: every request is one Stripe accepts', () => {
  let mock: RunningStripeMock;
  let call: ProviderCall;

  before(async function () {
    this.timeout(300_000); // the first run builds stripe-mock from the Go module proxy
    mock = await startStripeMock();
  });

  after(async () => mock?.stop());

  beforeEach(() => {
    call = {
      baseUrl: mock.url,
      credentials: { secret_key: 'sk_test_123' },
      idempotencyKey: `charge-${randomBytes(6).toString('hex')}:1`,
      timeoutMs: 10_000,
    };
  });

  /** Accepted: the adapter read an object id of the expected kind (a refused request carries none). */
  const accepted = (result: ProviderResult, prefix: string) =>
    expect(result.providerReference, `${result.rawCode}: ${result.rawMessage}`).to.match(new RegExp(`^${prefix}_`));

  /** A lookup that could read Stripe's answer (a refused request makes it unknown, lookup_http_4xx). */
  const answered = (looked: LookupResult) =>
    expect(looked.status, JSON.stringify(looked)).to.be.oneOf(['found', 'not_found']);

  const authorize = (overrides: Partial<Parameters<typeof providerAAdapter.authorize>[1]> = {}) =>
    providerAAdapter.authorize(call, {
      amount: 2500,
      currency: 'USD',
      paymentMethod: 'card',
      capture: true,
      reference: 'tx_stripe_mock',
      card: CARD,
      customer: { email: 'ada@example.com', name: 'Ada Lovelace' },
      ...overrides,
    });

  it('a card charge (PaymentMethod, then a confirmed PaymentIntent with our key in its metadata) is accepted', async () => {
    accepted(await authorize(), 'pi');
  });

  it('an authorization only (capture_method manual) is accepted', async () => {
    accepted(await authorize({ capture: false }), 'pi');
  });

  it('a wallet (Link) charge is accepted', async () => {
    accepted(await authorize({ paymentMethod: 'wallet', card: undefined }), 'pi');
  });

  it('a merchant-initiated charge (off_session, mit_exemption network transaction id) is accepted', async () => {
    accepted(await authorize({ recurring: { networkTransactionId: '123456789012345' } }), 'pi');
  });

  it('a card verification (SetupIntent) is accepted', async () => {
    accepted(
      await providerAAdapter.verifyCard(call, { card: CARD, currency: 'USD', reference: 'tx_stripe_mock' }),
      'seti',
    );
  });

  it('capture, cancel and refund are accepted', async () => {
    const providerReference = 'pi_1PgafyB7WZ01zgkWSjxsAJo3';
    accepted(await providerAAdapter.capture(call, { providerReference, amount: 2500, currency: 'USD' }), 'pi');
    accepted(await providerAAdapter.void(call, { providerReference }), 'pi');
    accepted(
      await providerAAdapter.refund(call, { providerReference, amount: 1000, currency: 'USD', reference: 'rf_1' }),
      're',
    );
  });

  it('every lookup (search, lists, the intent) is accepted and read; none finds a key Stripe never saw', async () => {
    const providerReference = 'pi_1PgafyB7WZ01zgkWSjxsAJo3';
    // stripe-mock's fixtures carry no metadata of ours: found would mean the adapter trusted an unrelated object.
    expect(await providerAAdapter.lookup(call, { operation: 'authorize', reference: 'tx_stripe_mock' })).to.deep.equal({
      status: 'not_found',
    });
    expect(await providerAAdapter.lookup(call, { operation: 'verify', reference: 'tx_stripe_mock' })).to.deep.equal({
      status: 'not_found',
    });
    expect(
      await providerAAdapter.lookup(call, { operation: 'refund', providerReference, reference: 'tx_stripe_mock' }),
    ).to.deep.equal({
      status: 'not_found',
    });
    answered(
      await providerAAdapter.lookup(call, { operation: 'capture', providerReference, reference: 'tx_stripe_mock' }),
    );
    answered(
      await providerAAdapter.lookup(call, { operation: 'void', providerReference, reference: 'tx_stripe_mock' }),
    );
  });

  it('retrieve and the credentials check are accepted', async () => {
    accepted(await providerAAdapter.retrieve!(call, { providerReference: 'pi_1PgafyB7WZ01zgkWSjxsAJo3' }), 'pi');
    expect(await providerAAdapter.testCredentials(call)).to.deep.equal({
      ok: true,
      message: 'The provider accepted the credentials',
    });
  });

  it('stripe-mock refuses what the adapter used to send: a raw card in payment_method_data, /v1/idempotency_keys', async () => {
    const headers = { authorization: 'Bearer sk_test_123' };
    const rawCard = await callProvider(call, {
      method: 'POST',
      path: '/v1/payment_intents',
      headers,
      form: {
        amount: 2500,
        currency: 'usd',
        confirm: true,
        payment_method_data: { type: 'card', card: { number: CARD.number, exp_month: 12, exp_year: 2034 } },
      },
    });
    expect(rawCard.status).to.equal(400);
    const lookupByKey = await callProvider(call, { method: 'GET', path: '/v1/idempotency_keys/abc', headers });
    expect(lookupByKey.status).to.equal(404);
  });
});
