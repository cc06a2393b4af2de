/**
 * Authorize.net settles once a day, and a settled transaction leaves the unsettled list: a lookup that reads only
 * that list would call a captured charge "not charged". Its lookups also search the batches settled in the last two
 * days, so the reconciler finds a charge that settled meanwhile and gives it back.
 */
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { createTenant } from '../helpers/factories';
import { rows } from '../helpers/db';
import { accountOf, control, ledger } from '../helpers/sandbox';
import { stack } from '../helpers/stack';
import { cardCharge, cardToken, cascade, charge, override } from '../helpers/transactions';
import { TASK_QUEUES } from '../../workflows/definitions';
import { reconcileUnknownOutcomesWorkflow } from '../../workflows/reconcile-unknown-outcomes';
import { pastResolutionHorizon } from '../helpers/charge-resolution';

const SERVER_ERROR = { number: '4000000000000119', cvc: '123', brand: 'visa' };

describe('provider_d: a charge that settled before the reconciler looked', () => {
  it('is found in the settled batch and given back, never reconciled as not charged', async function () {
    this.timeout(60_000);
    const tenant = await createTenant();
    const [connector] = await cascade(tenant, ['provider_d']);
    await override(connector, 'approved_server_error', 1);
    const lookup = await control('POST', '/overrides', {
      provider: 'provider_d',
      credentials: connector.credentials,
      operation: 'lookup',
      scenario: 'processing_error',
      times: 1,
    });
    expect(lookup.status).to.equal(201);
    const res = await charge(tenant, cardCharge(await cardToken(tenant, SERVER_ERROR)));
    expect(res.status, res.text).to.equal(201);
    expect(res.body.data.status).to.equal('pending');
    const tx = res.body.data;
    // Past the charge's own resolution (no answer within its horizon): the reconciler's turn.
    await pastResolutionHorizon(tx.id);

    // The day's batch settles: the charge leaves the unsettled list.
    const settled = await control('POST', '/batches/settle', {
      provider: 'provider_d',
      credentials: connector.credentials,
    });
    expect(settled.status, JSON.stringify(settled.body)).to.equal(200);

    await stack().api.deps.temporal.client.workflow.execute(reconcileUnknownOutcomesWorkflow, {
      workflowId: `test-reconcile-settled-${randomUUID()}`,
      taskQueue: TASK_QUEUES.payments,
    });
    const [attempt] = await rows(`select error_code from transaction_attempts where transaction_id = ?`, [tx.id]);
    expect(attempt.error_code).to.not.equal('reconciled_not_charged');
    const account = await accountOf('provider_d', connector.credentials);
    const refunds = (await ledger({ provider: 'provider_d', account, operation: 'refund' })).filter(
      (entry) => !entry.replayed,
    );
    expect(refunds.map((entry) => entry.amount)).to.deep.equal([1500]);
  });
});
