/**
 * Every connector adapter against the real sandbox PSP: each test card's scenario comes back as the right
 * normalised outcome with the provider's own raw code; timeouts and 5xx are unknown, a refused connection is a
 * network_error, and slow answers behave as the taxonomy says.
 */
import { expect } from 'chai';
import net from 'node:net';
import type { Outcome } from '../../domain/connectors/connector';
import { adapterFor } from '../../domain/connectors/registry';
import { callFor, card, credentialsFor, currencyFor, ledger, reference, SLUGS, type Slug } from '../helpers/sandbox';

/** The raw code each provider reports for each decline card, and the outcome it must map to. */
const DECLINES: { number: string; name: string; outcome: Outcome; raw: Record<Slug, string> }[] = [
  {
    number: '4000000000000002',
    name: 'do not honour',
    outcome: 'soft_decline',
    raw: {
      provider_a: 'do_not_honor',
      provider_b: '2',
      provider_c: 'cc_rejected_other_reason',
      provider_d: '2',
      checkout: '20005',
    },
  },
  {
    number: '4000000000009995',
    name: 'insufficient funds',
    outcome: 'soft_decline',
    raw: {
      provider_a: 'insufficient_funds',
      provider_b: '12',
      provider_c: 'cc_rejected_insufficient_amount',
      provider_d: '3',
      checkout: '20051',
    },
  },
  {
    number: '4000000000009979',
    name: 'stolen',
    outcome: 'hard_decline',
    raw: {
      provider_a: 'stolen_card',
      provider_b: '5',
      provider_c: 'cc_rejected_blacklist',
      provider_d: '4',
      checkout: '30043',
    },
  },
  {
    number: '4000000000009987',
    name: 'lost',
    outcome: 'hard_decline',
    raw: {
      provider_a: 'lost_card',
      provider_b: '5',
      provider_c: 'cc_rejected_blacklist',
      provider_d: '4',
      checkout: '30041',
    },
  },
  {
    number: '4000000000000069',
    name: 'expired',
    outcome: 'hard_decline',
    raw: {
      provider_a: 'expired_card',
      provider_b: '6',
      provider_c: 'cc_rejected_bad_filled_date',
      provider_d: '8',
      checkout: '20054',
    },
  },
  {
    number: '4000000000000309',
    name: 'invalid number',
    outcome: 'hard_decline',
    raw: {
      provider_a: 'incorrect_number',
      provider_b: '8',
      provider_c: 'cc_rejected_bad_filled_card_number',
      provider_d: '6',
      checkout: '20014',
    },
  },
  {
    number: '4100000000000019',
    name: 'fraud',
    outcome: 'hard_decline',
    raw: {
      provider_a: 'fraudulent',
      provider_b: '20',
      provider_c: 'cc_rejected_high_risk',
      provider_d: '250',
      checkout: '20059',
    },
  },
];

for (const slug of SLUGS) {
  describe(`${slug} adapter: authorize against the sandbox`, () => {
    const adapter = adapterFor(slug);
    const currency = currencyFor(slug);
    const authorize = (number: string, options: { timeoutMs?: number; capture?: boolean; expYear?: number } = {}) => {
      const credentials = credentialsFor(slug);
      const ref = reference();
      const call = callFor(slug, credentials, options.timeoutMs ? { timeoutMs: options.timeoutMs } : {});
      const promise = adapter.authorize(call, {
        amount: 2500,
        currency,
        paymentMethod: 'card',
        capture: options.capture ?? true,
        reference: ref,
        card: card(number, options.expYear ? { expYear: options.expYear } : {}),
        customer: { email: 'ada@example.com', name: 'Ada Lovelace' },
      });
      return { promise, ref, call };
    };

    it('approves the approve card with a provider reference, and the provider records one charge', async () => {
      const { promise, ref } = authorize('4242424242424242');
      const result = await promise;
      expect(result.outcome).to.equal('approved');
      expect(result.providerReference).to.be.a('string').and.not.empty;
      const entries = await ledger({ provider: slug, reference: ref });
      expect(entries.filter((entry) => entry.operation === 'authorize')).to.have.length(1);
      expect(entries[0]).to.include({
        amount: 2500,
        currency,
        card_last4: '4242',
        outcome: 'approved',
        provider_reference: result.providerReference,
      });
    });

    it('authorizes without capturing when capture is false', async () => {
      const { promise, ref } = authorize('5555555555554444', { capture: false });
      expect((await promise).outcome).to.equal('approved');
      const [entry] = await ledger({ provider: slug, reference: ref });
      expect(entry.outcome).to.equal('authorized');
    });

    for (const decline of DECLINES) {
      it(`maps the ${decline.name} test card to ${decline.outcome} with raw code ${decline.raw[slug]}`, async () => {
        const result = await authorize(decline.number).promise;
        expect(result.outcome).to.equal(decline.outcome);
        expect(result.rawCode).to.equal(decline.raw[slug]);
      });
    }

    it('treats an expiry date in the past as an expired card, whatever the number (hard decline)', async () => {
      const result = await authorize('4242424242424242', { expYear: 2020 }).promise;
      expect(result.outcome).to.equal('hard_decline');
      expect(result.rawCode).to.equal(DECLINES[4].raw[slug]);
    });

    it('treats a number failing the Luhn check as an invalid number (hard decline)', async () => {
      const result = await authorize('4242424242424241').promise;
      expect(result.outcome).to.equal('hard_decline');
    });

    it('returns unknown when the provider answers 5xx (it may have charged)', async () => {
      const result = await authorize('4000000000000119').promise;
      expect(result).to.include({ outcome: 'unknown', providerReference: null });
      expect(result.rawCode).to.match(/^http_5\d\d$/);
    });

    it('returns unknown within the call timeout when the provider never answers (it may have charged)', async () => {
      const started = Date.now();
      const { promise, ref } = authorize('4000000000000408', { timeoutMs: 300 });
      const result = await promise;
      expect(result).to.include({ outcome: 'unknown', rawCode: 'timeout', providerReference: null });
      expect(Date.now() - started).to.be.below(1500);
      const entries = await ledger({ provider: slug, reference: ref });
      expect(entries.map((entry) => entry.outcome)).to.include('timeout');
    });

    it('returns network_error when the connection is refused (nothing was sent: safe to cascade)', async () => {
      const result = await adapter.authorize(
        { ...callFor(slug, credentialsFor(slug)), baseUrl: `http://127.0.0.1:${await closedPort()}/unreachable` },
        {
          amount: 100,
          currency,
          paymentMethod: 'card',
          capture: true,
          reference: reference(),
          card: card('4242424242424242'),
        },
      );
      expect(result).to.include({ outcome: 'network_error', rawCode: 'refused' });
    });

    it('approves the slow card after about two seconds', async function () {
      this.timeout(10_000);
      const started = Date.now();
      const result = await authorize('4000000000000507', { timeoutMs: 5000 }).promise;
      expect(result.outcome).to.equal('approved');
      expect(Date.now() - started).to.be.within(1800, 4500);
    });

    it('never leaves a full card number in the provider ledger', async () => {
      const { promise, ref } = authorize('4000000000009995');
      await promise;
      const text = JSON.stringify(await ledger({ provider: slug, reference: ref }));
      expect(text).to.not.include('4000000000009995');
      expect(text).to.include('"card_last4":"9995"');
    });
  });
}

/** A local port nothing listens on (just released), so a connection to it is refused before anything is sent. */
function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
