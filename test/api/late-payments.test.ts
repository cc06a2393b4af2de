/**
 * Money that arrives late on an unpaid transaction is given back: a payment.succeeded for a charge that already
 * ended unpaid (expired, failed) is not applied — the checkout was reopened, the buyer may pay again — so the
 * provider's payment is refunded through the reconciler's give-back, and the merchant's activity log says so.
 */
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { createTenant } from '../helpers/factories';
import { rows } from '../helpers/db';
import { control, ledger } from '../helpers/sandbox';
import { stack } from '../helpers/stack';
import { waitUntil } from '../helpers/webhooks';
import { cascade, charge, providerReferenceOf, waitForTransaction } from '../helpers/transactions';
import { TASK_QUEUES } from '../../workflows/definitions';
import { reconcileUnknownOutcomesWorkflow } from '../../workflows/reconcile-unknown-outcomes';

describe('a payment that succeeds after its charge expired', () => {
  it('is given back (refunded at the provider, once) and recorded in the merchant activity; the charge stays expired', async function () {
    this.timeout(60_000);
    const tenant = await createTenant();
    const [connector] = await cascade(tenant, ['provider_b']);
    const tx = (
      await charge(tenant, {
        payment_method: 'pix',
        charge_type: 'payment',
        country: 'BR',
        amount: 4990,
        currency: 'BRL',
      })
    ).body.data;
    expect(tx.status).to.equal('pending');
    const payment = await providerReferenceOf(tenant, tx.id);
    expect((await control('POST', `/payments/${payment}/expire`)).status).to.equal(202);
    await waitForTransaction(tenant, tx.id, (t) => t.status === 'expired');

    expect((await control('POST', `/payments/${payment}/pay-late`)).status).to.equal(202);
    const recorded = await waitUntil(async () => {
      const found = await rows(
        `select changes from merchant_activities where merchant_id = ? and action = 'transaction.late_payment_given_back'`,
        [tenant.merchant_id],
      );
      return found.length > 0 && found;
    });
    expect(recorded[0].changes).to.include({
      transaction_id: tx.id,
      connector_id: connector.id,
      provider_reference: payment,
      amount: 4990,
      currency: 'BRL',
    });

    await stack().api.deps.temporal.client.workflow.execute(reconcileUnknownOutcomesWorkflow, {
      workflowId: `test-reconcile-late-payment-${randomUUID()}`,
      taskQueue: TASK_QUEUES.payments,
    });
    const refunds = (await ledger({ provider: 'provider_b', operation: 'refund' })).filter(
      (entry) => entry.reference === tx.id && !entry.replayed,
    );
    expect(refunds.map((entry) => entry.amount)).to.deep.equal([4990]);
    expect((await waitForTransaction(tenant, tx.id, () => true)).status).to.equal('expired');
  });
});
