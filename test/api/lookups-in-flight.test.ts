/**
 * A lookup's "nothing found" means "never processed" only where the provider's read sees work in flight, or once the
 * provider's stated grace period has passed since the request was sent (ConnectorAdapter.reads). Checkout.com lists
 * a capture or refund only once decided, and its payments list and Mercado Pago's (provider_c) search lag behind a
 * payment being created: there, a request whose answer was lost and that the read does not show yet stays unknown —
 * the refund pending, the charge unresolved without moving to the next connector, the reconciler waiting.
 */
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { startApi, type RunningApi } from '../../api/server';
import { api } from '../helpers/http';
import { createTenant, type Tenant } from '../helpers/factories';
import { rows } from '../helpers/db';
import { expectWrapped } from '../helpers/envelope';
import { control, ledger } from '../helpers/sandbox';
import { stack } from '../helpers/stack';
import {
  cardCharge,
  cardToken,
  cascade,
  charge,
  override,
  waitForTransaction,
  type CascadeConnector,
} from '../helpers/transactions';
import { TASK_QUEUES } from '../../workflows/definitions';
import { reconcileUnknownOutcomesWorkflow } from '../../workflows/reconcile-unknown-outcomes';
import { pastResolutionHorizon } from '../helpers/charge-resolution';

const SERVER_ERROR = { number: '4000000000000119', cvc: '123', brand: 'visa' };

async function force(connector: CascadeConnector, operation: string, scenario: string): Promise<void> {
  const res = await control('POST', '/overrides', {
    provider: connector.slug,
    credentials: connector.credentials,
    operation,
    scenario,
    times: 1,
  });
  expect(res.status, JSON.stringify(res.body)).to.equal(201);
}

/** First-time (not replayed) operations the providers processed for this reference. */
const processed = async (reference: string, operation: string) =>
  (await ledger({ reference, operation })).filter(
    (entry) => !entry.replayed && ['approved', 'authorized', 'pending'].includes(entry.outcome),
  );

describe('Checkout.com: a refund whose answer is lost and whose action is not listed yet', () => {
  let app: RunningApi;
  let tenant: Tenant;
  let connector: CascadeConnector;
  before(async () => {
    // A short wait, so the answer shows the refund while it is still being looked up.
    app = await startApi({ ...stack().config, workflowWaitMs: 1_000 }, 0);
    tenant = await createTenant();
    // No webhook: only the lookup can tell.
    [connector] = await cascade(tenant, ['checkout'], { webhooks: false });
  });
  after(async () => {
    await app?.stop();
  });

  it('stays pending (never failed while the provider may refund it), then settles once listed: refunded once', async function () {
    this.timeout(60_000);
    const tx = expectWrapped(await charge(tenant, cardCharge(await cardToken(tenant))), 201);
    expect(tx.status).to.equal('authorized');
    await force(connector, 'refund', 'approved_server_error');
    await force(connector, 'lookup', 'lag');
    const res = await api.post(`/transactions/${tx.id}/refunds`, {
      key: tenant.merchant_secret_key,
      headers: { 'idempotency-key': randomUUID() },
      body: { amount: 500 },
      baseUrl: app.url,
    });
    expect(res.status, res.text).to.be.oneOf([201, 202]);
    expect(res.body.data.status, res.text).to.equal('pending');
    const settled = await waitForTransaction(tenant, tx.id, (t) => t.amount_refunded > 0, 45_000);
    expect(settled).to.include({ status: 'partially_refunded', amount_refunded: 500 });
    const [refund] = await rows(`select status from refunds where transaction_id = ?`, [tx.id]);
    expect(refund.status).to.equal('succeeded');
    expect(await processed(res.body.data.id, 'refund')).to.have.length(1);
  });
});

for (const slug of ['provider_c', 'checkout'] as const) {
  const money = slug === 'provider_c' ? { currency: 'BRL', country: 'BR' } : {};

  describe(`${slug}: a charge whose answer is lost and that the provider's read does not show yet`, () => {
    let tenant: Tenant;
    let connectors: CascadeConnector[];
    beforeEach(async () => {
      tenant = await createTenant();
      connectors = await cascade(tenant, [slug, 'provider_a'], { webhooks: false });
      // Were the cascade to move on, the second provider would charge the customer whatever the card.
      await override(connectors[1], 'approve');
    });

    async function lostCharge() {
      await override(connectors[0], 'approved_server_error', 1);
      await force(connectors[0], 'lookup', 'lag');
      const res = await charge(tenant, cardCharge(await cardToken(tenant, SERVER_ERROR), money));
      expect(res.status, res.text).to.equal(201);
      return res.body.data;
    }

    it('does not cascade: the charge stays pending with the attempt unresolved, the second provider is never called', async () => {
      const tx = await lostCharge();
      expect((await processed(tx.id, 'authorize')).map((entry) => entry.provider)).to.deep.equal([slug]);
      expect(tx.status).to.equal('pending');
      const attempts = await rows(
        `select error_code from transaction_attempts where transaction_id = ? order by attempt_number`,
        [tx.id],
      );
      expect(attempts.map((row) => row.error_code)).to.deep.equal(['provider_outcome_unknown']);
    });

    it('the reconciler, within the grace period, waits for the read rather than settling it as not charged', async () => {
      const tx = await lostCharge();
      // Past the charge's own resolution (no answer within its horizon): the reconciler's turn.
      await pastResolutionHorizon(tx.id);
      await force(connectors[0], 'lookup', 'lag');
      await stack().api.deps.temporal.client.workflow.execute(reconcileUnknownOutcomesWorkflow, {
        workflowId: `test-reconcile-in-flight-${randomUUID()}`,
        taskQueue: TASK_QUEUES.payments,
      });
      const [attempt] = await rows(`select error_code from transaction_attempts where transaction_id = ?`, [tx.id]);
      expect(attempt.error_code).to.equal('provider_outcome_unknown');
    });
  });
}
