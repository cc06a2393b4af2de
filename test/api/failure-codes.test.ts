/**
 * One decline vocabulary: the same card declined on different providers gets the same failure_code on the
 * transaction, its timeline and its transaction.failed event; the provider's own code is beside it as provider_code.
 */
import { expect } from 'chai';
import { createTenant } from '../helpers/factories';
import { rows } from '../helpers/db';
import { expectWrapped } from '../helpers/envelope';
import { cardCharge, cardToken, cascade, charge } from '../helpers/transactions';

const INSUFFICIENT_FUNDS = { number: '4000000000009995', cvc: '123', brand: 'visa' };

async function declined(slug: string): Promise<any> {
  const tenant = await createTenant();
  await cascade(tenant, [slug]);
  const token = await cardToken(tenant, INSUFFICIENT_FUNDS);
  const tx = expectWrapped(await charge(tenant, cardCharge(token, { currency: 'USD' })), 201);
  expect(tx.status).to.equal('failed');
  const [event] = await rows(`select data from events where type = 'transaction.failed' and data->>'id' = ?`, [tx.id]);
  return { tx, event: event.data };
}

describe('failure_code — one vocabulary whatever the provider', () => {
  for (const [slug, providerCode] of [
    ['provider_a', 'insufficient_funds'],
    ['provider_b', '12'],
    ['provider_d', '3'],
  ]) {
    it(`insufficient funds on ${slug} is failure_code insufficient_funds with provider_code ${providerCode}, on the transaction, its attempt and its event`, async () => {
      const { tx, event } = await declined(slug);
      expect(tx).to.include({ failure_code: 'insufficient_funds', provider_code: providerCode });
      expect(tx.timeline.at(-1)).to.include({ error_code: 'insufficient_funds', provider_code: providerCode });
      expect(event).to.include({ failure_code: 'insufficient_funds', provider_code: providerCode });
    });
  }
});
