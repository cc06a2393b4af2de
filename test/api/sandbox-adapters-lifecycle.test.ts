/**
 * Every connector adapter against the real sandbox PSP, beyond the first authorization: capture, void, refund,
 * zero-amount verification, provider-side idempotency (asserted from the provider's ledger) and credential tests.
 */
import { expect } from 'chai';
import type { Outcome, ProviderCall } from '../../domain/connectors/connector';
import { adapterFor } from '../../domain/connectors/registry';
import { refIdFor } from '../../domain/connectors/provider_d/adapter';
import {
  callFor,
  card,
  credentialsFor,
  currencyFor,
  invalidCredentialsFor,
  ledger,
  reference,
  SLUGS,
  type Slug,
} from '../helpers/sandbox';

/** Adyen-like and Checkout.com-like refunds are asynchronous: accepted now, settled by webhook. */
const REFUND_OUTCOME: Record<Slug, Outcome> = {
  provider_a: 'approved',
  provider_b: 'pending',
  provider_c: 'approved',
  provider_d: 'approved',
  checkout: 'pending',
};

/** The key the provider itself sees (provider_d's refId is limited to 20 characters). */
const providerKey = (slug: Slug, key: string) => (slug === 'provider_d' ? refIdFor(key) : key);

for (const slug of SLUGS) {
  describe(`${slug} adapter: capture, void, refund, verify, idempotency, credentials`, () => {
    const adapter = adapterFor(slug);
    const currency = currencyFor(slug);
    let credentials: Record<string, unknown>;
    const call = (overrides: Partial<ProviderCall> = {}) => callFor(slug, credentials, overrides);
    const authorize = async (
      capture: boolean,
      amount = 5000,
      ref = reference(),
      callOverrides: Partial<ProviderCall> = {},
    ) => {
      const result = await adapter.authorize(call(callOverrides), {
        amount,
        currency,
        paymentMethod: 'card',
        capture,
        reference: ref,
        card: card('4242424242424242'),
      });
      expect(result.outcome).to.equal('approved');
      return { providerReference: result.providerReference!, ref };
    };

    beforeEach(() => {
      credentials = credentialsFor(slug);
    });

    it('captures an authorization, then refunds part of it', async () => {
      const { providerReference, ref } = await authorize(false);
      const captured = await adapter.capture(call(), { providerReference, amount: 5000, currency });
      expect(captured).to.include({ outcome: 'approved', providerReference });
      const refunded = await adapter.refund(call(), {
        providerReference,
        amount: 1500,
        currency,
        reference: `ref_${ref}`,
      });
      expect(refunded.outcome).to.equal(REFUND_OUTCOME[slug]);
      expect(refunded.providerReference).to.be.a('string').and.not.equal(null);
      const operations = (await ledger({ provider: slug, provider_reference: providerReference })).map(
        (entry) => `${entry.operation}:${entry.outcome}`,
      );
      expect(operations).to.include.members(['authorize:authorized', 'capture:approved']);
      const refunds = await ledger({
        provider: slug,
        provider_reference: refunded.providerReference!,
        operation: 'refund',
      });
      expect(refunds).to.have.length(1);
      expect(refunds[0].amount).to.equal(1500);
    });

    it('refuses to capture more than was authorized (processing_error, nothing captured)', async () => {
      const { providerReference } = await authorize(false, 1000);
      const result = await adapter.capture(call(), { providerReference, amount: 2000, currency });
      expect(result.outcome).to.equal('processing_error');
      const captures = await ledger({ provider: slug, provider_reference: providerReference, operation: 'capture' });
      expect(captures.every((entry) => entry.outcome === 'rejected')).to.equal(true);
    });

    it('voids an authorization, after which it cannot be captured', async () => {
      const { providerReference } = await authorize(false);
      expect((await adapter.void(call(), { providerReference })).outcome).to.equal('approved');
      expect((await adapter.capture(call(), { providerReference, amount: 5000, currency })).outcome).to.equal(
        'processing_error',
      );
    });

    it('verifies a card without charging it and declines a stolen card as a hard decline', async () => {
      const ref = reference();
      const verified = await adapter.verifyCard(call(), { card: card('4242424242424242'), currency, reference: ref });
      expect(verified.outcome).to.equal('approved');
      const stolen = await adapter.verifyCard(call(), {
        card: card('4000000000009979'),
        currency,
        reference: reference(),
      });
      expect(stolen.outcome).to.equal('hard_decline');
      const entries = await ledger({ provider: slug, reference: ref });
      const captured = entries.filter((entry) => entry.outcome === 'approved' && entry.operation === 'authorize');
      expect(captured, 'no captured charge').to.have.length(0);
      if (slug === 'provider_c') {
        // No zero-amount auth there: one currency unit is authorized, then cancelled.
        expect(entries.map((entry) => entry.operation)).to.include.members(['authorize', 'void']);
      } else {
        expect(entries.filter((entry) => entry.operation === 'verify')).to.have.length(1);
        expect(entries.find((entry) => entry.operation === 'verify')!.amount).to.equal(0);
      }
    });

    it('sends the same idempotency key twice without a second charge: the provider replays the first result', async () => {
      const key = `charge-${reference()}-attempt-1`;
      const ref = reference();
      const first = await authorize(true, 4200, ref, { idempotencyKey: key });
      const again = await adapter.authorize(call({ idempotencyKey: key }), {
        amount: 4200,
        currency,
        paymentMethod: 'card',
        capture: true,
        reference: ref,
        card: card('4242424242424242'),
      });
      expect(again).to.include({ outcome: 'approved', providerReference: first.providerReference });
      const entries = (await ledger({ provider: slug, idempotency_key: providerKey(slug, key) })).filter(
        (entry) => entry.operation === 'authorize',
      );
      expect(entries.filter((entry) => !entry.replayed)).to.have.length(1);
      expect(entries.filter((entry) => entry.replayed)).to.have.length(1);
      expect(entries.every((entry) => entry.provider_reference === first.providerReference)).to.equal(true);
    });

    it('refuses the same idempotency key with a different amount and never charges twice', async () => {
      const key = `charge-${reference()}-attempt-1`;
      const ref = reference();
      await authorize(true, 4200, ref, { idempotencyKey: key });
      const conflicting = await adapter.authorize(call({ idempotencyKey: key }), {
        amount: 9900,
        currency,
        paymentMethod: 'card',
        capture: true,
        reference: ref,
        card: card('4242424242424242'),
      });
      // provider_a tells a key reused with other parameters (400) from one still in use (409); the others answer
      // both alike ("already processed or in progress", a duplicate refId): unknown, so the cascade stops there.
      expect(conflicting.outcome).to.equal(slug === 'provider_a' ? 'processing_error' : 'unknown');
      const charges = (await ledger({ provider: slug, idempotency_key: providerKey(slug, key) })).filter(
        (entry) => ['approved', 'authorized'].includes(entry.outcome) && !entry.replayed,
      );
      expect(charges).to.have.length(1);
      expect(charges[0].amount).to.equal(4200);
    });

    it('testCredentials succeeds for well-formed test credentials', async () => {
      expect(await adapter.testCredentials(call())).to.deep.equal({
        ok: true,
        message: 'The provider accepted the credentials',
      });
    });

    it('testCredentials fails for the documented invalid credentials, without quoting them', async () => {
      const bad = invalidCredentialsFor(slug);
      const result = await adapter.testCredentials(callFor(slug, bad));
      expect(result.ok).to.equal(false);
      for (const value of Object.values(bad)) expect(result.message).to.not.include(String(value));
    });

    it('testCredentials fails when the provider cannot be reached', async () => {
      const result = await adapter.testCredentials({ ...call(), baseUrl: 'http://127.0.0.1:9' });
      expect(result).to.deep.equal({ ok: false, message: 'The provider could not be reached (connection)' });
    });

    it('an authorization with the invalid credentials is a processing_error (retryable on another connector)', async () => {
      const result = await adapter.authorize(callFor(slug, invalidCredentialsFor(slug)), {
        amount: 1000,
        currency,
        paymentMethod: 'card',
        capture: true,
        reference: reference(),
        card: card('4242424242424242'),
      });
      expect(result.outcome).to.equal('processing_error');
    });
  });
}

describe('provider_c adapter with OAuth client credentials', () => {
  const adapter = adapterFor('provider_c');

  it('exchanges the client credentials for a token and charges with it', async () => {
    const credentials = credentialsFor('provider_c', 'oauth2');
    const ref = reference();
    const result = await adapter.authorize(callFor('provider_c', credentials), {
      amount: 1000,
      currency: 'BRL',
      paymentMethod: 'card',
      capture: true,
      reference: ref,
      card: card('4242424242424242'),
    });
    expect(result.outcome).to.equal('approved');
    const [entry] = await ledger({ provider: 'provider_c', reference: ref });
    expect(entry.account).to.equal(credentials.client_id);
    expect(
      await ledger({ provider: 'provider_c', account: String(credentials.client_id), operation: 'oauth_token' }),
    ).to.have.length(1);
  });

  it('reuses the cached token for later calls', async () => {
    const credentials = credentialsFor('provider_c', 'oauth2');
    for (let i = 0; i < 3; i++)
      expect((await adapter.testCredentials(callFor('provider_c', credentials))).ok).to.equal(true);
    expect(
      await ledger({ provider: 'provider_c', account: String(credentials.client_id), operation: 'oauth_token' }),
    ).to.have.length(1);
  });

  it('reports refused client credentials as failing credentials and a processing_error charge', async () => {
    const credentials = { client_id: 'client-invalid', client_secret: 'secret-12345' };
    expect((await adapter.testCredentials(callFor('provider_c', credentials))).ok).to.equal(false);
    const result = await adapter.authorize(callFor('provider_c', credentials), {
      amount: 1000,
      currency: 'BRL',
      paymentMethod: 'card',
      capture: true,
      reference: reference(),
      card: card('4242424242424242'),
    });
    expect(result).to.include({ outcome: 'processing_error', rawCode: 'invalid_client' });
  });
});
