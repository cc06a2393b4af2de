/**
 * Rule (as test/api/order-history-order.test.ts for an order's history): events are listed in the order
 * the changes they report happened. For one object that is the order of its row lock: a change that waited for the
 * lock happened after the change holding it, so its event comes after — however early its database transaction
 * began, and whatever the clock of the process recording it says (the API and the workers run on different hosts;
 * their clocks differ by milliseconds or more, and one transaction records several events in one millisecond).
 * GET /events lists newest first, so the later change's event is listed first.
 */
import { expect } from 'chai';
import { recordEvent, type EventType } from '../../domain/events/events.outbox';
import { api } from '../helpers/http';
import { createTenant, type Tenant } from '../helpers/factories';
import { stack } from '../helpers/stack';
import { cardCharge, cardToken, cascade, charge } from '../helpers/transactions';

/**
 * Runs `work` as a process whose clock reads `now()` (another host's clock): `new Date()` and `Date.now()` in this
 * process follow it until `work` settles. Only the clock is changed; the database and the code are the real ones.
 */
async function withClock<T>(now: () => number, work: () => Promise<T>): Promise<T> {
  const RealDate = Date;
  class HostDate extends RealDate {
    constructor(...args: any[]) {
      if (args.length === 0) super(now());
      else super(...(args as [string | number | Date]));
    }
    static override now(): number {
      return now();
    }
  }
  globalThis.Date = HostDate as DateConstructor;
  try {
    return await work();
  } finally {
    globalThis.Date = RealDate;
  }
}

async function authorizedTransaction(tenant: Tenant): Promise<string> {
  await cascade(tenant, ['provider_a']);
  const tx = (await charge(tenant, cardCharge(await cardToken(tenant)))).body.data;
  expect(tx.status).to.equal('authorized');
  return tx.id as string;
}

const listed = async (tenant: Tenant, types: EventType[]) => {
  const res = await api.get('/events', { key: tenant.merchant_secret_key, query: { type: types.join(',') } });
  expect(res.status, res.text).to.equal(200);
  return (res.body.data as Array<{ type: string }>).map((e) => e.type);
};

describe('Rule: events are listed in the order the changes they report happened', () => {
  it('lists the event of a change that waited on the row lock after the event of the change it waited for, even when its transaction began earlier and its host clock runs behind', async () => {
    const tenant = await createTenant();
    const txId = await authorizedTransaction(tenant);
    const event = (type: EventType) => ({
      organizationId: tenant.organization_id,
      merchantId: tenant.merchant_id,
      livemode: true,
      type,
      object: { id: txId },
    });
    const lockTransaction = 'select id from transactions where id = ? for update';

    // The first change's database transaction begins (fixing its now()) before the second change runs.
    await stack()
      .orm.em.fork()
      .transactional(async (early) => {
        await early.execute('select now()');
        // The second change holds the transaction's row lock, records its event and commits first.
        await stack()
          .orm.em.fork()
          .transactional(async (late) => {
            await late.execute(lockTransaction, [txId]);
            await recordEvent(late, event('transaction.refund_pending'));
          });
        // The first change gets the lock only now, on a host whose clock is two seconds behind.
        await early.execute(lockTransaction, [txId]);
        const behind = Date.now() - 2000;
        await withClock(
          () => behind,
          () => recordEvent(early, event('transaction.dispute_created')),
        );
      });

    expect(await listed(tenant, ['transaction.refund_pending', 'transaction.dispute_created'])).to.deep.equal([
      'transaction.dispute_created',
      'transaction.refund_pending',
    ]);
  });

  it('lists the events one database transaction records in one millisecond in the order it recorded them', async () => {
    const tenant = await createTenant();
    const txId = await authorizedTransaction(tenant);
    const types: EventType[] = [
      'transaction.refund_pending',
      'transaction.partially_refunded',
      'transaction.refund_failed',
      'transaction.dispute_created',
      'transaction.dispute_updated',
      'transaction.charged_back',
      'transaction.dispute_won',
      'transaction.dispute_closed',
    ];
    const instant = Date.now();
    await stack()
      .orm.em.fork()
      .transactional(async (em) => {
        await em.execute('select id from transactions where id = ? for update', [txId]);
        await withClock(
          () => instant,
          async () => {
            for (const type of types)
              await recordEvent(em, {
                organizationId: tenant.organization_id,
                merchantId: tenant.merchant_id,
                livemode: true,
                type,
                object: { id: txId },
              });
          },
        );
      });

    expect(await listed(tenant, types)).to.deep.equal([...types].reverse());
  });
});
