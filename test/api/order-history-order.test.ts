/**
 * Rule (found by the transaction model, seed 5286): an order's status history reads as one chain in the
 * order the moves happened. A move that waited on the order's row lock behind another move is recorded after it,
 * however early its database transaction began (now() is the transaction's start, not the move's time).
 */
import { expect } from 'chai';
import { moveOrderStatus } from '../../db/repositories/orders.repository';
import { api } from '../helpers/http';
import { createTenant } from '../helpers/factories';
import { stack } from '../helpers/stack';
import { cardCharge, cardToken, cascade, charge } from '../helpers/transactions';

describe('Rule: an order status history is one chain in the order the moves happened', () => {
  it('records a move that began its transaction earlier but waited on the lock after the move it waited for', async () => {
    const tenant = await createTenant();
    await cascade(tenant, ['provider_a']);
    const tx = (await charge(tenant, cardCharge(await cardToken(tenant)))).body.data;
    expect(tx.status).to.equal('authorized');
    const orderId = tx.order_id as string;

    // The first move's transaction starts (fixing its now()) before the second move runs and commits.
    await stack()
      .orm.em.fork()
      .transactional(async (early) => {
        await early.execute('select now()');
        await moveOrderStatus(stack().orm.em.fork(), {
          orderId,
          to: 'refund_pending',
          triggeredBy: 'api',
          key: `${orderId}:test-refund`,
        });
        await moveOrderStatus(early, {
          orderId,
          to: 'charged_back',
          triggeredBy: 'psp_webhook',
          key: `${orderId}:test-dispute`,
        });
      });

    const order = await api.get(`/orders/${orderId}`, { key: tenant.merchant_secret_key });
    expect(order.status, order.text).to.equal(200);
    const history = (order.body.data.status_history as Array<{ from_status: string | null; to_status: string }>).map(
      (entry) => [entry.from_status, entry.to_status],
    );
    expect(history.slice(-2)).to.deep.equal([
      ['authorized', 'refund_pending'],
      ['refund_pending', 'charged_back'],
    ]);
    for (let i = 1; i < history.length; i += 1)
      expect(history[i][0], JSON.stringify(history)).to.equal(history[i - 1][1]);
  });
});
