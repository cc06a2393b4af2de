/**
 * The reconciler takes a bounded batch per run. Attempts that stay unknown forever (an Adyen charge whose
 * notification never came: its lookup can never tell) must not fill every batch: each run takes the attempts no run
 * has taken up for longest, so a newer attempt that could be resolved gets its turn. The reconciler takes the
 * charges whose own resolution gave up at its horizon (failed, the attempt still unresolved).
 */
import { expect } from 'chai';
import { createTenant, type Tenant } from '../helpers/factories';
import { pastResolutionHorizon } from '../helpers/charge-resolution';
import { rows } from '../helpers/db';
import { control, ledger } from '../helpers/sandbox';
import { stack } from '../helpers/stack';
import { cardCharge, cardToken, cascade, charge, override } from '../helpers/transactions';
import { TASK_QUEUES } from '../../workflows/definitions';
import { reconcileUnknownOutcomesWorkflow } from '../../workflows/reconcile-unknown-outcomes';
import { RECONCILE_SCHEDULE_ID } from '../../worker/schedules';

const LIMIT = 3;
const client = () => stack().api.deps.temporal.client;

const runReconciler = (tag: string, batch?: number): Promise<Record<string, number>> =>
  client().workflow.execute(reconcileUnknownOutcomesWorkflow, {
    workflowId: `test-reconcile-rotation-${tag}-${Date.now()}`,
    taskQueue: TASK_QUEUES.payments,
    args: batch === undefined ? [] : [batch],
  });

/** A charge whose attempt stayed unknown, left as its resolution's horizon leaves it: failed, for the reconciler. */
async function unresolvedCharge(tenant: Tenant, currency: string, country: string): Promise<string> {
  const res = await charge(tenant, cardCharge(await cardToken(tenant), { currency, country }));
  expect(res.status, res.text).to.equal(201);
  expect(res.body.data.status).to.equal('pending');
  expect(res.body.data.timeline.map((a: any) => a.error_code)).to.deep.equal(['provider_outcome_unknown']);
  await pastResolutionHorizon(res.body.data.id);
  return res.body.data.id;
}

const errorCodeOf = async (transactionId: string): Promise<string> =>
  (await rows('select error_code from transaction_attempts where transaction_id = ?', [transactionId]))[0].error_code;

describe('reconciler: attempts that stay unknown take turns with the others', () => {
  it('with more forever-unknown attempts than a run takes, a resolvable newer attempt is settled within two runs', async function () {
    this.timeout(180_000);
    // The test drives every run itself.
    const schedule = client().schedule.getHandle(RECONCILE_SCHEDULE_ID);
    await schedule.pause('test: reconciler runs are driven by the test');
    try {
      // What earlier tests left unresolved is taken up once, as the schedule's runs would have.
      await runReconciler('sweep');

      // LIMIT + 1 Adyen charges that were taken (approved, answered 5xx) and whose notification never comes.
      const adyenTenant = await createTenant();
      const [adyen] = await cascade(adyenTenant, ['provider_b'], { webhooks: false });
      const forever: string[] = [];
      for (let index = 0; index <= LIMIT; index += 1) {
        await override(adyen, 'approved_server_error', 1);
        forever.push(await unresolvedCharge(adyenTenant, 'BRL', 'BR'));
      }

      // Then one Stripe-like charge whose lookup failed once: the next lookup finds it, so it can be given back.
      const stripeTenant = await createTenant();
      const [stripe] = await cascade(stripeTenant, ['provider_a']);
      await override(stripe, 'approved_server_error', 1);
      const lookupFails = await control('POST', '/overrides', {
        provider: 'provider_a',
        credentials: stripe.credentials,
        operation: 'lookup',
        scenario: 'processing_error',
        times: 1,
      });
      expect(lookupFails.status, JSON.stringify(lookupFails.body)).to.equal(201);
      const resolvable = await unresolvedCharge(stripeTenant, 'USD', 'US');

      const tallies = [await runReconciler('first', LIMIT), await runReconciler('second', LIMIT)];
      expect(await errorCodeOf(resolvable), JSON.stringify(tallies)).to.equal('reconciled_charge_reversed');
      const refunds = (await ledger({ reference: resolvable, operation: 'refund' })).filter((e) => !e.replayed);
      expect(refunds.map((entry) => entry.amount)).to.deep.equal([1500]);
      // The Adyen ones are still unknown (nothing can tell), and every one of them was taken up in its turn.
      for (const id of forever) expect(await errorCodeOf(id)).to.equal('provider_outcome_unknown');
      const checked = await rows(
        `select count(*)::int as n from transaction_attempts where transaction_id in (?) and reconcile_checked_at is not null`,
        [forever],
      );
      expect(checked[0].n).to.equal(forever.length);
    } finally {
      await schedule.unpause('test: done');
    }
  });
});
