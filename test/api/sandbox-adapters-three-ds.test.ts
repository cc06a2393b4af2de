/**
 * 3-D Secure through each dialect's adapter against the sandbox: asked for, a challenge card comes back pending with
 * the provider's challenge page; the shared page returns the buyer to the URL the dialect carried; the adapter's
 * retrieve (what the charge's wait asks) then reads the provider's verdict with how the card was authenticated — for
 * Adyen (provider_b), which has no read, its /payments/details answer to the redirectResult the return carried.
 * provider_a's retrieve expands latest_charge, which the sandbox, like Stripe, returns as an id otherwise.
 */
import { expect } from 'chai';
import type { ProviderResult } from '../../domain/connectors/connector';
import { adapterFor } from '../../domain/connectors/registry';
import { callFor, card, credentialsFor, reference, type Slug } from '../helpers/sandbox';
import { stack } from '../helpers/stack';

const CHALLENGE = '4000000000003220';
const CHALLENGE_THEN_DECLINE = '4000008400001629';
const FRICTIONLESS = '4000000000003055';
const RETURN_URL = 'http://localhost:5999/api/v1/transactions/tx_abc/three-ds/return';

const DIALECTS: Slug[] = ['provider_a', 'checkout', 'provider_c', 'provider_b'];

async function authorize(slug: Slug, number: string) {
  const call = callFor(slug, credentialsFor(slug));
  const answer = await adapterFor(slug).authorize(call, {
    amount: 1500,
    currency: 'USD',
    paymentMethod: 'card',
    card: card(number),
    capture: true,
    reference: reference(),
    threeDs: { request: true, returnUrl: RETURN_URL },
  });
  return { call, answer };
}

/** Posts the challenge page's form; returns where it sends the browser. */
async function completeChallenge(url: string, outcome: 'authenticated' | 'failed'): Promise<string> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: `outcome=${outcome}`,
    redirect: 'manual',
  });
  expect(response.status).to.equal(303);
  return response.headers.get('location')!;
}

async function challengedThen(slug: Slug, number: string, outcome: 'authenticated' | 'failed') {
  const { call, answer } = await authorize(slug, number);
  expect(answer).to.include({ outcome: 'pending' });
  expect(answer.challengeUrl).to.match(/\/_sandbox\/challenge\//);
  const back = await completeChallenge(answer.challengeUrl!, outcome);
  expect(back.split('?')[0]).to.equal(RETURN_URL);
  const adapter = adapterFor(slug);
  const providerReference = answer.providerReference!;
  // What the wait asks: the verdict on what the return carried where the provider decides on that, else its read.
  if (!adapter.completeAuthentication) return adapter.retrieve!(call, { providerReference });
  const returnParams = Object.fromEntries(new URL(back).searchParams);
  return adapter.completeAuthentication(call, { providerReference, returnParams });
}

const threeDsOf = (read: ProviderResult) => ({ status: read.threeDs?.status, shift: read.threeDs?.liability_shift });

for (const slug of DIALECTS) {
  describe(`3-D Secure through the ${slug} adapter`, () => {
    it('a challenge card asked to authenticate is pending with the challenge page; passed, retrieve reads it approved and authenticated', async () => {
      const read = await challengedThen(slug, CHALLENGE, 'authenticated');
      expect(read.outcome).to.equal('approved');
      expect(threeDsOf(read)).to.deep.equal({ status: 'authenticated', shift: true });
    });

    it('a failed challenge is read as a decline whose authentication failed', async () => {
      const read = await challengedThen(slug, CHALLENGE, 'failed');
      expect(read.outcome).to.be.oneOf(['soft_decline', 'hard_decline']);
      expect(threeDsOf(read)).to.deep.equal({ status: 'failed', shift: false });
    });

    it('a challenge passed and then declined by the issuer is read as a decline, authenticated', async () => {
      const read = await challengedThen(slug, CHALLENGE_THEN_DECLINE, 'authenticated');
      expect(read.outcome).to.be.oneOf(['soft_decline', 'hard_decline']);
      expect(threeDsOf(read)).to.deep.equal({ status: 'authenticated', shift: true });
    });

    it('a frictionless card asked to authenticate is approved at once, with no challenge', async () => {
      const { answer } = await authorize(slug, FRICTIONLESS);
      expect(answer.outcome).to.equal('approved');
      expect(answer.challengeUrl ?? null).to.equal(null);
    });
  });
}

describe('provider_a: latest_charge is an id unless expanded, as at Stripe', () => {
  it('GET /v1/payment_intents/:id returns latest_charge as an id, and the charge object with expand[]=latest_charge', async () => {
    const { call, answer } = await authorize('provider_a', FRICTIONLESS);
    const url = `${stack().sandboxUrl}/provider_a/v1/payment_intents/${answer.providerReference}`;
    const headers = { authorization: `Bearer ${(call.credentials as { secret_key: string }).secret_key}` };
    const plain = (await (await fetch(url, { headers })).json()) as { latest_charge: unknown };
    expect(plain.latest_charge).to.be.a('string').and.match(/^ch_/);
    const expanded = (await (await fetch(`${url}?expand[]=latest_charge`, { headers })).json()) as {
      latest_charge: { object: string };
    };
    expect(expanded.latest_charge).to.include({ object: 'charge' });
  });

  it('retrieve expands latest_charge, so it reads the frictionless authentication on the charge', async () => {
    const { call, answer } = await authorize('provider_a', FRICTIONLESS);
    const read = await adapterFor('provider_a').retrieve!(call, { providerReference: answer.providerReference! });
    expect(read.threeDs).to.include({ status: 'frictionless', liability_shift: true });
  });
});
