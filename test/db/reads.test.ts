/** db/reads.ts: a hot read without the ORM returns exactly what the ORM would hydrate, or refuses to try. */
import { expect } from 'chai';
import { ApiKeySchema, CustomerSchema, EventSchema } from '../../db/entities';
import { findOneRow } from '../../db/reads';
import { api } from '../helpers/http';
import { stack } from '../helpers/stack';
import { recordTestEvent } from '../helpers/webhooks';
import { createTenant, customerInput } from '../helpers/factories';

/** Every property as the ORM hydrates it (the plain row must equal it field by field, Dates and JSON included). */
const plain = (entity: object) => ({ ...entity });

describe('findOneRow (hot reads without the ORM)', () => {
  it('reads a customer exactly as em.findOne hydrates it: strings, JSON columns and timestamps as Dates', async () => {
    const tenant = await createTenant();
    const created = await api.post('/customers', {
      key: tenant.merchant_secret_key,
      body: customerInput({ metadata: { plan: 'gold', seats: '3' } }),
    });
    expect(created.status).to.equal(201);
    const where = { id: created.body.data.id as string, merchantId: tenant.merchant_id };
    const row = await findOneRow(stack().orm.em.fork(), CustomerSchema, where);
    const entity = await stack().orm.em.fork().findOneOrFail(CustomerSchema, where);
    expect(row).to.deep.equal(plain(entity));
    expect(row?.createdAt).to.be.instanceOf(Date);
  });

  it('reads an event exactly as em.findOne hydrates it', async () => {
    const tenant = await createTenant();
    // Already fanned out, so the outbox listener does not change the row between the two reads.
    const event = await recordTestEvent(
      tenant,
      'transaction.created',
      { id: 'tx_1', amount: 100 },
      { fannedOut: true },
    );
    const where = { id: event.id, merchantId: tenant.merchant_id };
    const row = await findOneRow(stack().orm.em.fork(), EventSchema, where);
    expect(row).to.deep.equal(plain(await stack().orm.em.fork().findOneOrFail(EventSchema, where)));
  });

  it("is scoped by every condition given: another merchant's id reads as nothing", async () => {
    const [mine, theirs] = [await createTenant(), await createTenant()];
    const event = await recordTestEvent(mine, 'transaction.created', { id: 'tx_2' }, { fannedOut: true });
    expect(await findOneRow(stack().orm.em.fork(), EventSchema, { id: event.id, merchantId: theirs.merchant_id })).to.be
      .null;
  });

  it('refuses an entity with a column the driver returns differently from the ORM (text[] via ArrayType)', async () => {
    const tenant = await createTenant();
    const refused = await findOneRow(stack().orm.em.fork(), ApiKeySchema, { merchantId: tenant.merchant_id }).catch(
      (error: unknown) => error,
    );
    expect(refused)
      .to.be.instanceOf(Error)
      .with.property('message')
      .that.matches(/scopes .*needs ORM hydration/);
  });
});
