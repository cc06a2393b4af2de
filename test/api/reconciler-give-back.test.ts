/**
 * The reconciler gives back a charge the provider made while the transaction answered `failed` — and follows that
 * give-back to the provider's final word: a refund the provider holds pending leaves the attempt unresolved
 * (provider_outcome_unknown) and is asked about again on later runs; the attempt is settled as given back only once
 * the refund succeeded; a refund the provider refused is sent again under a new key, never counted as given back.
 */
import { expect } from 'chai';
import { createTenant, type Tenant } from '../helpers/factories';
import { rows } from '../helpers/db';
import { accountOf, control, ledger } from '../helpers/sandbox';
import { stack } from '../helpers/stack';
import { waitUntil } from '../helpers/webhooks';
import { cardCharge, cardToken, cascade, charge, override, type CascadeConnector } from '../helpers/transactions';
import { TASK_QUEUES } from '../../workflows/definitions';
import { reconcileUnknownOutcomesWorkflow } from '../../workflows/reconcile-unknown-outcomes';
import { pastResolutionHorizon } from '../helpers/charge-resolution';

const SERVER_ERROR = { number: '4000000000000119', cvc: '123', brand: 'visa' };
const AMOUNT = 1500;

let runs = 0;
async function runReconciler(): Promise<Record<string, number>> {
  runs += 1;
  return stack().api.deps.temporal.client.workflow.execute(reconcileUnknownOutcomesWorkflow, {
    workflowId: `test-reconcile-give-back-${Date.now()}-${runs}`,
    taskQueue: TASK_QUEUES.payments,
  });
}

async function operationOverride(connector: CascadeConnector, operation: string, scenario: string): Promise<void> {
  const res = await control('POST', '/overrides', {
    provider: connector.slug,
    credentials: connector.credentials,
    operation,
    scenario,
    times: 1,
  });
  expect(res.status, JSON.stringify(res.body)).to.equal(201);
}

/**
 * A charge provider_a made (answered 5xx) whose lookup failed too, as its resolution's horizon leaves it: the
 * transaction failed, the attempt unresolved for the reconciler.
 */
async function chargedButFailed(tenant: Tenant, connector: CascadeConnector): Promise<{ id: string; psp: string }> {
  await override(connector, 'approved_server_error', 1);
  await operationOverride(connector, 'lookup', 'processing_error');
  const res = await charge(tenant, cardCharge(await cardToken(tenant, SERVER_ERROR)));
  expect(res.status, res.text).to.equal(201);
  expect(res.body.data.status).to.equal('pending');
  await pastResolutionHorizon(res.body.data.id);
  const [charged] = (await ledger({ reference: res.body.data.id, operation: 'authorize' })).filter(
    (entry) => !entry.replayed && entry.outcome === 'approved',
  );
  expect(charged, 'the sandbox charged').to.exist;
  return { id: res.body.data.id, psp: charged.provider_reference! };
}

/** The refunds the connector's account received (first-time requests, not replays), oldest first. */
const refundsAt = async (connector: CascadeConnector) =>
  (
    await ledger({
      provider: connector.slug,
      account: await accountOf('provider_a', connector.credentials),
      operation: 'refund',
    })
  ).filter((entry) => !entry.replayed);

async function attemptOf(transactionId: string) {
  const [attempt] = await rows(
    `select error_code, outcome, give_back_status from transaction_attempts where transaction_id = ? order by attempt_number`,
    [transactionId],
  );
  return attempt;
}

describe('the reconciler follows its give-back refund to the provider’s final word', () => {
  let tenant: Tenant;
  let connector: CascadeConnector;

  beforeEach(async () => {
    tenant = await createTenant();
    [connector] = await cascade(tenant, ['provider_a']);
  });

  it('a give-back refund answered pending keeps the attempt unresolved; once the provider refuses it, it is sent again and only its success settles the attempt', async function () {
    this.timeout(90_000);
    const tx = await chargedButFailed(tenant, connector);
    await operationOverride(connector, 'refund', 'review');

    const first = await runReconciler();
    const [pending] = await refundsAt(connector);
    expect([pending?.amount, pending?.outcome], JSON.stringify(first)).to.deep.equal([AMOUNT, 'pending']);
    // Pending is not given back: the attempt stays for the next run.
    expect(await attemptOf(tx.id)).to.include({ error_code: 'provider_outcome_unknown' });

    // The provider then refuses it (a refund can fail even after it succeeded): the customer is still charged.
    expect((await control('POST', `/refunds/${pending.provider_reference}/fail`)).status).to.equal(202);
    expect((await control('GET', `/payments/${tx.psp}`)).body).to.include({ refundedAmount: 0 });
    // Its refund.failed webhook reached the attempt (the next run would also find it by a lookup).
    await waitUntil(async () => (await attemptOf(tx.id)).give_back_status === 'failed', 15_000, 'the refusal kept');

    const retried = await runReconciler();
    const refunds = await refundsAt(connector);
    expect(
      refunds.map((entry) => [entry.amount, entry.outcome]),
      JSON.stringify(retried),
    ).to.deep.equal([
      [AMOUNT, 'pending'],
      [AMOUNT, 'approved'],
    ]);
    expect(refunds[1].idempotency_key).to.not.equal(refunds[0].idempotency_key);
    expect((await control('GET', `/payments/${tx.psp}`)).body).to.include({ refundedAmount: AMOUNT });
    expect(await attemptOf(tx.id)).to.include({ error_code: 'reconciled_charge_reversed', outcome: 'approved' });
  });

  it('a give-back refund answered pending and then completed settles the attempt with that one refund', async function () {
    this.timeout(90_000);
    const tx = await chargedButFailed(tenant, connector);
    await operationOverride(connector, 'refund', 'review');
    await runReconciler();
    expect((await refundsAt(connector)).map((entry) => entry.outcome)).to.deep.equal(['pending']);
    expect(await attemptOf(tx.id)).to.include({ error_code: 'provider_outcome_unknown' });

    // The sandbox decides it at once; the next run learns it (by its webhook or a lookup) and sends nothing.
    await runReconciler();
    expect((await refundsAt(connector)).map((entry) => entry.outcome)).to.deep.equal(['pending']);
    expect((await control('GET', `/payments/${tx.psp}`)).body).to.include({ refundedAmount: AMOUNT });
    expect(await attemptOf(tx.id)).to.include({ error_code: 'reconciled_charge_reversed', outcome: 'approved' });
  });
});
