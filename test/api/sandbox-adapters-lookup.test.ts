/**
 * Every adapter's lookup of an earlier charge against the sandbox PSP: after an unknown outcome it tells whether the
 * provider charged (found, with the real outcome), never processed the request (not_found), or cannot tell. The
 * lookup is told the charge's reference, as the providers that find payments by reference need it. provider_b
 * (Adyen) has no read at all and cancels instead: test/api/connector-lookups-by-reference.test.ts.
 */
import { expect } from 'chai';
import type { ProviderCall } from '../../domain/connectors/connector';
import { refIdFor } from '../../domain/connectors/provider_d/adapter';
import { adapterFor } from '../../domain/connectors/registry';
import { callFor, card, control, credentialsFor, currencyFor, ledger, reference, SLUGS } from '../helpers/sandbox';

for (const slug of SLUGS.filter((provider) => provider !== 'provider_b')) {
  describe(`${slug} adapter: lookup by idempotency key`, () => {
    const adapter = adapterFor(slug);
    let call: ProviderCall;
    let ref: string;

    beforeEach(() => {
      call = callFor(slug, credentialsFor(slug), { timeoutMs: 300 });
      ref = reference();
    });

    const lookup = () => adapter.lookup(call, { operation: 'authorize', reference: ref });

    const force = async (scenario: string, operation: 'authorize' | 'lookup' = 'authorize') => {
      const res = await control('POST', '/overrides', {
        provider: slug,
        credentials: call.credentials,
        scenario,
        operation,
        times: 1,
      });
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
    };

    const authorize = (number = '4242424242424242') =>
      adapter.authorize(call, {
        amount: 2500,
        currency: currencyFor(slug),
        paymentMethod: 'card',
        capture: true,
        reference: ref,
        card: card(number),
      });

    it('finds the charge a provider made without answering, with its reference, and charges nothing more', async () => {
      await force('approved_no_answer');
      expect((await authorize()).outcome).to.equal('unknown');
      const looked = await lookup();
      expect(looked.status).to.equal('found');
      if (looked.status !== 'found') return;
      expect(looked.result.outcome).to.equal('approved');
      const charged = (await ledger({ provider: slug, idempotency_key: refKey(slug, call) })).filter(
        (entry) => entry.operation === 'authorize',
      );
      expect(charged.map((entry) => [entry.outcome, entry.provider_reference])).to.deep.equal([
        [charged[0].outcome, looked.result.providerReference],
      ]);
      expect(['approved', 'authorized']).to.include(charged[0].outcome);
    });

    it('finds the charge behind a 5xx answer', async () => {
      await force('approved_server_error');
      expect((await authorize()).outcome).to.equal('unknown');
      const looked = await lookup();
      expect(looked.status === 'found' && looked.result.outcome).to.equal('approved');
    });

    it('finds a decline with its decline outcome', async () => {
      expect((await authorize('4000000000009979')).outcome).to.equal('hard_decline');
      const looked = await lookup();
      expect(looked.status === 'found' && looked.result.outcome).to.equal('hard_decline');
    });

    it('answers not_found when the provider never processed the request (card 4000000000000408)', async () => {
      expect((await authorize('4000000000000408')).outcome).to.equal('unknown');
      expect(await lookup()).to.deep.equal({ status: 'not_found' });
    });

    it('is unknown when the lookup itself fails (5xx)', async () => {
      await force('approved_server_error');
      await authorize();
      await force('processing_error', 'lookup');
      expect((await lookup()).status).to.equal('unknown');
    });
  });
}

/** The key the provider files the request under (provider_d's refId is a digest of long keys). */
const refKey = (slug: string, call: ProviderCall) =>
  slug === 'provider_d' ? refIdFor(call.idempotencyKey) : call.idempotencyKey;
