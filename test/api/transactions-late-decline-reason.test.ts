/**
 * Rule (a failed transaction always says why): a pending payment (pix, a card held for review) that the
 * provider declines later fails with the provider's decline, as failure_code in the one vocabulary with the
 * provider's own code as provider_code, and its message — on the transaction (GET) and in its transaction.failed
 * event — not the generic payment_failed. This file: the verdict by the provider's
 * payment.failed webhook (real stack, sandbox webhooks). The settlement's own read of the payment:
 * test/workflows/pending-decline-reason.test.ts.
 */
import { expect } from 'chai';
import { api } from '../helpers/http';
import { createTenant } from '../helpers/factories';
import { rows } from '../helpers/db';
import { control } from '../helpers/sandbox';
import {
  cardCharge,
  cardToken,
  cascade,
  charge,
  override,
  providerReferenceOf,
  waitForTransaction,
} from '../helpers/transactions';

const pix = { payment_method: 'pix', charge_type: 'payment', country: 'BR', amount: 4990, currency: 'BRL' };

/** What each provider's webhook says of the sandbox's late decline (do_not_honor): its own code, ours do_not_honor. */
const CASES = [
  { slug: 'provider_a', how: 'a card held for review', code: 'do_not_honor', message: 'Your card was declined.' },
  { slug: 'provider_b', how: 'a pix', code: 'Refused', message: 'Refused' },
  { slug: 'provider_c', how: 'a pix', code: 'cc_rejected_other_reason', message: 'rejected' },
  { slug: 'checkout', how: 'a card held for review', code: '20005', message: 'Declined - Do not honour' },
] as const;

describe('Rule: a pending payment the provider declines later says why (payment.failed webhook)', () => {
  for (const { slug, how, code, message } of CASES) {
    it(`${slug}: ${how} failed by the provider's webhook is failure_code do_not_honor with provider_code ${code} on the transaction and in transaction.failed`, async () => {
      const tenant = await createTenant();
      const [connector] = await cascade(tenant, [slug]);
      let body: Record<string, unknown> = pix;
      if (how !== 'a pix') {
        await override(connector, 'review', 1);
        body = cardCharge(await cardToken(tenant));
      }
      const res = await charge(tenant, body);
      expect(res.status, res.text).to.equal(201);
      expect(res.body.data.status).to.equal('pending');
      const txId = res.body.data.id as string;

      const failed = await control('POST', `/payments/${await providerReferenceOf(tenant, txId)}/fail`, {});
      expect(failed.status, JSON.stringify(failed.body)).to.be.lessThan(300);
      const done = await waitForTransaction(tenant, txId, (t) => t.status !== 'pending', 20_000);
      expect(done).to.include({
        status: 'failed',
        failure_code: 'do_not_honor',
        provider_code: code,
        failure_message: message,
      });

      // The webhook decided it (not the settlement's read, a minute later).
      const order = (await api.get(`/orders/${done.order_id}`, { key: tenant.merchant_secret_key })).body.data;
      expect(order.status_history.at(-1).triggered_by).to.equal('psp_webhook');
      const events = await rows(`select data from events where type = 'transaction.failed' and data->>'id' = ?`, [
        txId,
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
