/** db/reads.ts: a hot read without the ORM returns exactly what the ORM would hydrate, or refuses to try. */
import { expect } from 'chai';
import {
  ApiKeySchema,
  CustomerSchema,
  EventSchema,
  TransactionAttemptSchema,
  TransactionSchema,
} from '../../db/entities';
import { findOneRow, findRows, readNamed } from '../../db/reads';
import { cardCharge, cardToken, cascade, charge, override } from '../helpers/transactions';
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

  it('reads a transaction (bigint amounts as numbers) and its attempts in order exactly as the ORM hydrates them', async function () {
    this.timeout(30_000);
    const tenant = await createTenant();
    const [first] = await cascade(tenant, ['provider_a', 'provider_b']);
    await override(first, 'do_not_honor', 1); // a soft decline, then the second connector approves: two attempts
    const res = await charge(tenant, cardCharge(await cardToken(tenant)));
    expect(res.status, res.text).to.equal(201);
    const where = { id: res.body.data.id as string, merchantId: tenant.merchant_id };
    const row = await findOneRow(stack().orm.em.fork(), TransactionSchema, where);
    expect(row).to.deep.equal(plain(await stack().orm.em.fork().findOneOrFail(TransactionSchema, where)));
    expect(row?.amount).to.equal(1500);
    const attempts = await findRows(
      stack().orm.em.fork(),
      TransactionAttemptSchema,
      { transactionId: where.id },
      'attemptNumber',
    );
    const hydrated = await stack()
      .orm.em.fork()
      .find(TransactionAttemptSchema, { transactionId: where.id }, { orderBy: { attemptNumber: 'asc' } });
    expect(attempts).to.have.length(2);
    expect(attempts).to.deep.equal(hydrated.map(plain));
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

describe('readNamed (hand-written hot reads as named statements)', () => {
  const sql = 'select id, email from customers where merchant_id = ? and email = ?';

  it('reads with its ? placeholders bound in order, outside and inside a transaction (the transaction sees its own rows)', async () => {
    const tenant = await createTenant();
    const input = customerInput();
    const created = await api.post('/customers', { key: tenant.merchant_secret_key, body: input });
    expect(created.status).to.equal(201);
    const rows = await readNamed(stack().orm.em.fork(), 'test_customer_by_email', sql, [
      tenant.merchant_id,
      input.email,
    ]);
    expect(rows).to.deep.equal([{ id: created.body.data.id, email: input.email }]);

    await stack()
      .orm.em.fork()
      .transactional(async (tx) => {
        await tx.execute(`update customers set email = 'renamed@example.com' where id = ?`, [created.body.data.id]);
        const seen = await readNamed(tx, 'test_customer_by_email', sql, [tenant.merchant_id, 'renamed@example.com']);
        expect(seen).to.have.length(1);
        throw new Error('roll back');
      })
      .catch((error: Error) => expect(error.message).to.equal('roll back'));
  });

  it('refuses one name for two statements (a connection would run the first under the second name)', async () => {
    const em = stack().orm.em.fork();
    await readNamed(em, 'test_two_statements', sql, ['a', 'b']);
    const refused = await readNamed(em, 'test_two_statements', `${sql} limit 1`, ['a', 'b']).catch(
      (error: unknown) => error,
    );
    expect(refused)
      .to.be.instanceOf(Error)
      .with.property('message')
      .that.matches(/names two statements/);
  });
});
