/**
 * The sandbox's signed webhooks, received by a local endpoint and parsed by each adapter's parseWebhook: pix/boleto
 * payments that settle or expire when the control API says so, refund results, disputes; tampering or a wrong
 * secret is an InvalidWebhookError.
 */
import { expect } from 'chai';
import { InvalidWebhookError, type ConnectorAdapter } from '../../domain/connectors/connector';
import { adapterFor } from '../../domain/connectors/registry';
import {
  callFor,
  card,
  control,
  credentialsFor,
  currencyFor,
  ledger,
  reference,
  SLUGS,
  webhookSecretFor,
  WebhookReceiver,
  type ReceivedWebhook,
  type Slug,
} from '../helpers/sandbox';

describe('sandbox PSP webhooks', () => {
  let receiver: WebhookReceiver;
  before(async () => {
    receiver = await new WebhookReceiver().start();
  });
  after(() => receiver.stop());

  /** Fresh credentials with this test's receiver registered for their account. */
  async function setUp(slug: Slug) {
    const credentials = credentialsFor(slug);
    const secret = webhookSecretFor(slug);
    await receiver.register(slug, credentials, secret);
    return { adapter: adapterFor(slug), credentials, secret, call: () => callFor(slug, credentials) };
  }

  const customer = { email: 'ana@example.com.br', name: 'Ana Souza', documentNumber: '12345678909' };

  function parse(adapter: ConnectorAdapter, webhook: ReceivedWebhook, secret: string | null) {
    return adapter.parseWebhook({ headers: webhook.headers, rawBody: webhook.rawBody, webhookSecret: secret });
  }

  describe('pix and boleto: pending until the sandbox control API settles or expires them', () => {
    const cases: { slug: Slug; method: 'pix' | 'boleto'; action: 'settle' | 'expire'; type: string }[] = [
      { slug: 'provider_b', method: 'pix', action: 'settle', type: 'payment.succeeded' },
      { slug: 'provider_b', method: 'pix', action: 'expire', type: 'payment.expired' },
      { slug: 'provider_b', method: 'boleto', action: 'settle', type: 'payment.succeeded' },
      { slug: 'provider_b', method: 'boleto', action: 'expire', type: 'payment.expired' },
      { slug: 'provider_c', method: 'pix', action: 'settle', type: 'payment.succeeded' },
      { slug: 'provider_c', method: 'pix', action: 'expire', type: 'payment.expired' },
    ];
    for (const { slug, method, action, type } of cases) {
      it(`${slug} ${method}: pending with instructions, then ${action} sends a signed ${type} webhook`, async () => {
        const { adapter, secret, call } = await setUp(slug);
        const ref = reference();
        const pending = await adapter.authorize(call(), {
          amount: 12_000,
          currency: 'BRL',
          paymentMethod: method,
          capture: true,
          reference: ref,
          customer,
        });
        expect(pending.outcome).to.equal('pending');
        expect(pending.paymentInstructions).to.include({ type: method });
        expect(pending.paymentInstructions!.expires_at).to.be.a('string');
        if (method === 'pix') expect(pending.paymentInstructions!.qr_code_text).to.match(/^000201/);
        else expect(pending.paymentInstructions!.barcode).to.be.a('string').and.not.empty;

        const triggered = await control('POST', `/payments/${pending.providerReference}/${action}`);
        expect(triggered.status).to.equal(202);
        const event = parse(adapter, await receiver.next(), secret);
        expect(event).to.include({
          type,
          providerReference: pending.providerReference,
          reference: ref,
          amount: 12_000,
        });
        expect(event.eventId).to.be.a('string').and.not.empty;
        expect((await ledger({ provider: slug, reference: ref })).map((entry) => entry.operation)).to.include(action);
      });
    }

    it('refuses to settle a payment that is not pending (409)', async () => {
      const { adapter, call, secret } = await setUp('provider_b');
      const paid = await adapter.authorize(call(), {
        amount: 1000,
        currency: 'BRL',
        paymentMethod: 'card',
        capture: true,
        reference: reference(),
        card: card('4242424242424242'),
      });
      // Adyen notifies every payment it decided (AUTHORISATION).
      expect(parse(adapter, await receiver.next(), secret)).to.include({
        type: 'payment.succeeded',
        providerReference: paid.providerReference,
      });
      expect((await control('POST', `/payments/${paid.providerReference}/settle`)).status).to.equal(409);
      expect((await control('POST', '/payments/NOSUCHPAYMENT000/settle')).status).to.equal(404);
    });
  });

  for (const slug of SLUGS) {
    describe(`${slug} webhooks: refunds, disputes and signature checks`, () => {
      const capturedPayment = async (setup: Awaited<ReturnType<typeof setUp>>, ref = reference()) => {
        const result = await setup.adapter.authorize(setup.call(), {
          amount: 3000,
          currency: currencyFor(slug),
          paymentMethod: 'card',
          capture: true,
          reference: ref,
          card: card('4242424242424242'),
        });
        expect(result.outcome).to.equal('approved');
        // Adyen notifies every payment it decided (AUTHORISATION) before anything else happens to it.
        if (slug === 'provider_b')
          expect(parse(setup.adapter, await receiver.next(), setup.secret)).to.include({
            type: 'payment.succeeded',
            providerReference: result.providerReference,
          });
        return result.providerReference!;
      };

      it('sends a refund-result webhook naming the refund the adapter returned', async () => {
        const setup = await setUp(slug);
        const payment = await capturedPayment(setup);
        const refund = await setup.adapter.refund(setup.call(), {
          providerReference: payment,
          amount: 1000,
          currency: currencyFor(slug),
          reference: reference(),
        });
        // Asynchronous providers settle the refund by webhook on their own; for the others the control API fails it later.
        const expected = refund.outcome === 'pending' ? 'refund.succeeded' : 'refund.failed';
        if (refund.outcome !== 'pending')
          expect((await control('POST', `/refunds/${refund.providerReference}/fail`)).status).to.equal(202);
        const event = parse(setup.adapter, await receiver.next(), setup.secret);
        expect(event).to.include({ type: expected, providerReference: refund.providerReference, amount: 1000 });
      });

      if (slug === 'provider_d') {
        it('has no dispute notifications (the control API answers 422)', async () => {
          const setup = await setUp(slug);
          expect((await control('POST', `/payments/${await capturedPayment(setup)}/dispute`)).status).to.equal(422);
        });
      } else {
        it('sends dispute opened and closed webhooks naming the disputed payment', async () => {
          const setup = await setUp(slug);
          const ref = reference();
          const payment = await capturedPayment(setup, ref);
          await control('POST', `/payments/${payment}/dispute`, { stage: 'opened' });
          expect(parse(setup.adapter, await receiver.next(), setup.secret)).to.include({
            type: 'dispute.opened',
            providerReference: payment,
          });
          await control('POST', `/payments/${payment}/dispute`, { stage: 'won' });
          expect(parse(setup.adapter, await receiver.next(), setup.secret)).to.include({
            type: 'dispute.closed',
            providerReference: payment,
          });
        });
      }

      it('rejects a tampered body, a wrong secret and a missing secret with InvalidWebhookError', async () => {
        const setup = await setUp(slug);
        const ref = reference();
        const payment = await capturedPayment(setup, ref);
        await control('POST', `/payments/${payment}/dispute`, { stage: 'opened' }).then(async (response) => {
          // provider_d has no disputes: use a refund-result webhook instead.
          if (response.status === 422) {
            const refund = await setup.adapter.refund(setup.call(), {
              providerReference: payment,
              amount: 500,
              currency: currencyFor(slug),
              reference: ref,
            });
            await control('POST', `/refunds/${refund.providerReference}/succeed`);
          }
        });
        const webhook = await receiver.next();
        expect(() => parse(setup.adapter, webhook, setup.secret)).to.not.throw();
        const tampered = { ...webhook, rawBody: webhook.rawBody.replace(ref, `${ref.slice(0, -1)}X`) };
        expect(tampered.rawBody).to.not.equal(webhook.rawBody);
        expect(() => parse(setup.adapter, tampered, setup.secret)).to.throw(InvalidWebhookError);
        expect(() => parse(setup.adapter, webhook, webhookSecretFor(slug))).to.throw(InvalidWebhookError);
        expect(() => parse(setup.adapter, webhook, null)).to.throw(InvalidWebhookError);
      });
    });
  }

  describe('provider_b (Adyen): an AUTHORISATION notification for every payment it decided', () => {
    const payment = (ref: string, number: string) => ({
      amount: 2300,
      currency: 'BRL',
      paymentMethod: 'card' as const,
      capture: true,
      reference: ref,
      card: card(number),
    });

    it('also for a charge whose answer was lost (approved, answered 5xx): success true, our reference, the amount', async () => {
      const setup = await setUp('provider_b');
      const forced = await control('POST', '/overrides', {
        provider: 'provider_b',
        credentials: setup.credentials,
        scenario: 'approved_server_error',
        times: 1,
      });
      expect(forced.status, JSON.stringify(forced.body)).to.equal(201);
      const ref = reference();
      expect((await setup.adapter.authorize(setup.call(), payment(ref, '4242424242424242'))).outcome).to.equal(
        'unknown',
      );
      const [charged] = await ledger({ provider: 'provider_b', reference: ref, operation: 'authorize' });
      expect(parse(setup.adapter, await receiver.next(), setup.secret)).to.include({
        type: 'payment.succeeded',
        providerReference: charged.provider_reference,
        reference: ref,
        amount: 2300,
      });
    });

    it('success false for a refused payment', async () => {
      const setup = await setUp('provider_b');
      const ref = reference();
      const refused = await setup.adapter.authorize(setup.call(), payment(ref, '4000000000000002'));
      expect(refused.outcome).to.equal('soft_decline');
      expect(parse(setup.adapter, await receiver.next(), setup.secret)).to.include({
        type: 'payment.failed',
        providerReference: refused.providerReference,
        reference: ref,
      });
    });
  });

  describe('webhook delivery bookkeeping', () => {
    it('records each delivery attempt on the event, without the URL token', async () => {
      const setup = await setUp('provider_b');
      const ref = reference();
      const pending = await setup.adapter.authorize(setup.call(), {
        amount: 5000,
        currency: 'BRL',
        paymentMethod: 'pix',
        capture: true,
        reference: ref,
        customer,
      });
      await control('POST', `/payments/${pending.providerReference}/settle`);
      await receiver.next();
      const events = (await control('GET', `/events?reference=${ref}`)).body.data;
      expect(events).to.have.length(1);
      expect(events[0].deliveries[0]).to.include({ attempt: 1, status: 200, error: null });
      expect(events[0].deliveries[0].url).to.not.include('token=');
    });
  });
});
