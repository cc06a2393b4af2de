/**
 * A failing query never carries its bound values into an error or a log line: knex runs with
 * compileSqlOnError: false (db/mikro-orm.config.ts), the SQL MikroORM inlined the values into is cut out of the
 * error message (db/orm.ts), and the logger drops PostgreSQL's value-quoting error fields (api/logger.ts). The e-mail below is bound into real failing statements against the suite's database.
 */
import { expect } from 'chai';
import { createLogger } from '../../domain/platform/logger';
import { newId } from '../../domain/platform/ids';
import { CustomerSchema, type Customer } from '../../db/entities';
import { createTenant, uniqueEmail } from '../helpers/factories';
import { stack } from '../helpers/stack';

async function failureOf(statement: Promise<unknown>): Promise<Error> {
  try {
    await statement;
  } catch (error) {
    return error as Error;
  }
  throw new Error('the statement was expected to fail');
}

describe('Database errors carry no bound values', () => {
  it('a failing query with an e-mail in it logs no e-mail (unique and check violations)', async () => {
    const tenant = await createTenant();
    const email = uniqueEmail('leak-probe');
    const em = stack().orm.em.fork();
    const insert = 'insert into customers (id, merchant_id, email) values (?, ?, ?)';
    await em.execute(insert, [newId('cust'), tenant.merchant_id, email]);

    const duplicate = await failureOf(em.execute(insert, [newId('cust'), tenant.merchant_id, email]));
    const uppercase = await failureOf(em.execute(insert, [newId('cust'), tenant.merchant_id, email.toUpperCase()]));
    // The ORM's own path (unit of work → flush) too.
    const viaOrm = stack().orm.em.fork();
    viaOrm.create(CustomerSchema, { id: newId('cust'), merchantId: tenant.merchant_id, email } as Customer);
    const flushed = await failureOf(viaOrm.flush());
    // knex with bound parameters (a query builder or raw query): compileSqlOnError: false keeps them out.
    const knex = stack().orm.em.getConnection().getKnex();
    const bound = await failureOf(knex.raw(insert, [newId('cust'), tenant.merchant_id, email]).then());

    const lines: string[] = [];
    const logger = createLogger('info', { write: (line: string) => void lines.push(line) });
    for (const error of [duplicate, uppercase, flushed, bound]) {
      expect(error.message.toLowerCase()).to.not.include(email);
      logger.error({ err: error, request_id: 'req_probe' }, 'unhandled error');
    }
    const log = lines.join('').toLowerCase();
    // The errors were logged, their constraints named (the test is not vacuous) …
    expect(log).to.include('customers_merchant_email_key');
    expect(log).to.include('customers_email_lowercase');
    // … and the e-mail appears nowhere, in any case or field.
    expect(log).to.not.include(email);
    expect(log).to.not.include(email.split('@')[0]);
  });

  it('the logger drops value-quoting fields from any logged error, whatever produced it', () => {
    const lines: string[] = [];
    const logger = createLogger('info', { write: (line: string) => void lines.push(line) });
    const error = Object.assign(new Error('duplicate key value violates unique constraint "x"'), {
      detail: 'Key (email)=(ana@example.com) already exists.',
      where: 'SQL statement with ana@example.com',
      code: '23505',
    });
    logger.error({ err: error }, 'unhandled error');
    const log = lines.join('');
    expect(log).to.include('23505');
    expect(log).to.not.include('ana@example.com');
  });
});
