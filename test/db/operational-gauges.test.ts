/** db/repositories/operational-gauges.repository.ts: the worker's gauges count what an operator must act on. */
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { readOperationalGauges } from '../../db/repositories/operational-gauges.repository';
import { createTenant } from '../helpers/factories';
import { stack } from '../helpers/stack';
import { recordTestEvent } from '../helpers/webhooks';

const UNRESOLVED = 'provider_outcome_unknown';

describe('The webhook retry backlog gauge', () => {
  it('counts a delivery whose latest attempt waits for its retry, not one a later attempt replaced, nor one dead for a week', async () => {
    const tenant = await createTenant();
    const event = await recordTestEvent(tenant, 'transaction.created', undefined, { fannedOut: true });
    const em = () => stack().orm.em.fork();
    const before = await readOperationalGauges(em(), UNRESOLVED);

    const attempt = (workflowId: string, n: number, status: string, nextRetry: string | null) =>
      em().execute(
        `insert into webhook_deliveries (id, merchant_id, merchant_webhook_config_id, event_id, event_type,
           workflow_id, trigger, attempt_number, target_url, status, next_retry_at)
         values (?, ?, 'whc_gauge', ?, 'transaction.created', ?, 'automatic', ?, 'https://receiver.example', ?,
           ${nextRetry ?? 'null'})`,
        [`whd_${randomUUID()}`, tenant.merchant_id, event.id, workflowId, n, status],
      );
    const waiting = `webhook-gauge-${randomUUID()}`;
    const replaced = `webhook-gauge-${randomUUID()}`;
    const dead = `webhook-gauge-${randomUUID()}`;
    await attempt(waiting, 1, 'retrying', `now() + interval '5 minutes'`);
    await attempt(replaced, 1, 'retrying', `now() - interval '1 minute'`);
    await attempt(replaced, 2, 'succeeded', null);
    await attempt(dead, 3, 'retrying', `now() - interval '8 days'`);

    const after = await readOperationalGauges(em(), UNRESOLVED);
    expect(after.deliveriesAwaitingRetry - before.deliveriesAwaitingRetry).to.equal(1);
  });

  it('reads the retrying attempts through their partial index, not the whole delivery log', async () => {
    const plan = await stack()
      .orm.em.fork()
      .transactional(async (em) => {
        // Few rows in a test database: forbid the sequential scan so the plan shows whether the index can serve.
        await em.execute('set local enable_seqscan = off');
        return em.execute<Array<{ 'QUERY PLAN': string }>>(
          `explain select count(*) from webhook_deliveries d
             where d.status = 'retrying' and d.next_retry_at > now() - interval '7 days'`,
        );
      });
    expect(plan.map((row) => row['QUERY PLAN']).join('\n')).to.match(/webhook_deliveries_retrying_idx/);
  });
});
