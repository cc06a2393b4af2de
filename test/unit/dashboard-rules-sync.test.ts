/**
 * The Dashboard's copies of the API's state rules (it imports nothing from the server) agree with the API's own:
 * the statuses it filters by, and which state enables each money action and subscription operation.
 */
import { expect } from 'chai';
import { ORDER_STATUSES, TRANSACTION_STATUSES } from '../../db/entities';
import { statusesAllowing } from '../../domain/transactions/transactions.state-table';
import { ALLOWED_FROM } from '../../workflows/lib/subscription-rules';
import * as dashboardPayments from '../../web/dashboard/src/transaction-rules';
import { ALLOWED_FROM as DASHBOARD_ALLOWED_FROM } from '../../web/dashboard/src/subscription-rules';

const sorted = (values: readonly string[]) => [...values].sort();

describe("The Dashboard's state rules mirror the API's", () => {
  it('filters payments and orders by exactly the statuses the API has', () => {
    expect(sorted(dashboardPayments.TRANSACTION_STATUSES)).to.deep.equal(sorted(TRANSACTION_STATUSES));
    expect(sorted(dashboardPayments.ORDER_STATUSES)).to.deep.equal(sorted(ORDER_STATUSES));
  });

  it('enables capture, void and refund in exactly the states the transaction move table allows them from', () => {
    expect(sorted(dashboardPayments.CAPTURABLE)).to.deep.equal(sorted(statusesAllowing('capture_requested')));
    expect(sorted(dashboardPayments.VOIDABLE)).to.deep.equal(sorted(statusesAllowing('void_succeeded')));
    expect(sorted(dashboardPayments.REFUNDABLE)).to.deep.equal(sorted(statusesAllowing('refund_requested')));
  });

  it('enables each subscription operation in exactly the states the API allows it from', () => {
    expect(Object.keys(DASHBOARD_ALLOWED_FROM).sort()).to.deep.equal(Object.keys(ALLOWED_FROM).sort());
    for (const [operation, states] of Object.entries(ALLOWED_FROM))
      expect(sorted(DASHBOARD_ALLOWED_FROM[operation as keyof typeof DASHBOARD_ALLOWED_FROM]), operation).to.deep.equal(
        sorted(states),
      );
  });
});
