import { expect } from 'chai';
import { ensureSchedules, WEBHOOK_SWEEP_SCHEDULE_ID } from '../../worker/schedules';
import { TASK_QUEUES } from '../../workflows/definitions';
import { stack } from '../helpers/stack';

describe('Temporal schedule: webhook outbox sweep', () => {
  it('runs webhookOutboxSweepWorkflow every minute on the webhooks task queue, registered once', async () => {
    const client = stack().api.deps.temporal.client;
    await ensureSchedules(client);
    const description = await client.schedule.getHandle(WEBHOOK_SWEEP_SCHEDULE_ID).describe();
    expect(description.action.type).to.equal('startWorkflow');
    if (description.action.type !== 'startWorkflow') return;
    expect(description.action.workflowType).to.equal('webhookOutboxSweepWorkflow');
    expect(description.action.taskQueue).to.equal(TASK_QUEUES.webhooks);
    expect(description.spec.intervals?.[0]?.every).to.equal(60_000);
    expect(description.policies.overlap).to.equal('SKIP');
  });
});
