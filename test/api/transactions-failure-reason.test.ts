/** A failed transaction always says why: failure_code and failure_message, also when no provider was tried. */
import { expect } from 'chai';
import { createTenant } from '../helpers/factories';
import { rows } from '../helpers/db';
import { expectWrapped } from '../helpers/envelope';
import { cardCharge, cardToken, cascade, charge } from '../helpers/transactions';
import { CARDS } from '../helpers/vault';

describe('POST /api/v1/transactions — why a charge failed', () => {
  it('no connector of the routing plan can take it: failed with failure_code no_route, an empty timeline, and the same in transaction.failed', async () => {
    const tenant = await createTenant();
    await cascade(tenant, ['provider_a']);
    // The active profile's only connector does not take JPY: the profile routes the charge, no connector can take it.
    const tx = expectWrapped(await charge(tenant, cardCharge(await cardToken(tenant), { currency: 'JPY' })), 201);
    expect(tx).to.include({ status: 'failed', failure_code: 'no_route' });
    expect(tx.failure_message).to.match(/No connector of the routing plan can take this charge/);
    expect(tx.timeline).to.deep.equal([]);
    const [event] = await rows(`select data from events where type = 'transaction.failed' and data->>'id' = ?`, [
      tx.id,
    ]);
    expect(event.data).to.include({ failure_code: 'no_route' });
  });

  it('a provider decline: the last attempt’s code and message', async () => {
    const tenant = await createTenant();
    await cascade(tenant, ['provider_a']);
    const tx = expectWrapped(await charge(tenant, cardCharge(await cardToken(tenant, CARDS.stolen))), 201);
    expect(tx.status).to.equal('failed');
    expect(tx.failure_code).to.equal(tx.timeline.at(-1).error_code).and.to.be.a('string');
    expect(tx.failure_message).to.be.a('string').and.not.equal('');
  });

  it('a successful charge has no failure reason', async () => {
    const tenant = await createTenant();
    await cascade(tenant, ['provider_a']);
    const tx = expectWrapped(await charge(tenant, cardCharge(await cardToken(tenant))), 201);
    expect(tx).to.include({ status: 'authorized', failure_code: null, failure_message: null });
  });
});
