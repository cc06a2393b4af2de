/**
 * Rule (a failed transaction always says why): a pending payment the provider declines later fails with
 * the provider's own decline code and message when the settlement workflow learns it by reading the payment (no
 * webhook) — on the transaction (GET) and in its transaction.failed event. Time-skipping test server; the
 * transaction is a real pending charge created through the API with no webhook endpoint at the sandbox, and the
 * activities write the stack's database. The webhook path: test/api/transactions-late-decline-reason.test.ts.
 */
import { expect } from 'chai';
import { asyncSettlementWorkflow } from '../../workflows/transaction';
import { useTimeSkipping, stackWorker } from '../helpers/time-skipping';
import { api } from '../helpers/http';
import { createTenant } from '../helpers/factories';
import { rows } from '../helpers/connectors';
import { control } from '../helpers/sandbox';
import { cardCharge, cardToken, cascade, charge, override, providerReferenceOf } from '../helpers/transactions';

/** What each provider's read says of the sandbox's late decline (do_not_honor), as its adapter maps declines. */
const CASES = [
  { slug: 'provider_c', how: 'a pix', code: 'cc_rejected_other_reason', message: 'rejected' },
  { slug: 'provider_a', how: 'a card held for review', code: 'do_not_honor', message: 'Your card was declined.' },
] as const;

describe('Rule: a pending payment the provider declines later says why (the settlement reads the payment)', () => {
  const taskQueue = 'test-pending-decline-reason';
  const server = useTimeSkipping();

  for (const { slug, how, code, message } of CASES) {
    it(`${slug}: ${how} found declined by the settlement's read fails with failure_code do_not_honor and provider_code ${code}, also in transaction.failed`, async () => {
      const tenant = await createTenant();
      const [connector] = await cascade(tenant, [slug], { webhooks: false });
      let body: Record<string, unknown> = {
        payment_method: 'pix',
        charge_type: 'payment',
        country: 'BR',
        amount: 4990,
        currency: 'BRL',
      };
      if (how !== 'a pix') {
        await override(connector, 'review', 1);
        body = cardCharge(await cardToken(tenant));
      }
      const res = await charge(tenant, body);
      expect(res.status, res.text).to.equal(201);
      expect(res.body.data.status).to.equal('pending');
      const tx = res.body.data;
      const failed = await control('POST', `/payments/${await providerReferenceOf(tenant, tx.id)}/fail`, {});
      expect(failed.status, JSON.stringify(failed.body)).to.be.lessThan(300);

      const worker = await stackWorker(server.env, `${taskQueue}-${slug}`);
      const expiresAt = new Date(Number(await server.env.currentTimeMs()) + 24 * 3600 * 1000).toISOString();
      const handle = await server.env.client.workflow.start(asyncSettlementWorkflow, {
        workflowId: `test-settlement-decline-${tx.id}`,
        taskQueue: `${taskQueue}-${slug}`,
        args: [{ transactionId: tx.id, amount: tx.amount, expiresAt }],
      });
      expect(await worker.runUntil(handle.result())).to.deep.equal({ transactionId: tx.id, status: 'failed' });

      const read = (await api.get(`/transactions/${tx.id}`, { key: tenant.merchant_secret_key })).body.data;
      expect(read).to.include({
        status: 'failed',
        failure_code: 'do_not_honor',
        provider_code: code,
        failure_message: message,
      });
      const events = await rows(`select data from events where type = 'transaction.failed' and data->>'id' = ?`, [
        tx.id,
      ]);
      expect(events).to.have.length(1);
      expect(events[0].data).to.include({
        failure_code: 'do_not_honor',
        provider_code: code,
        failure_message: message,
      });
    });
  }
});
