import { expect } from 'chai';
import { Client, Connection } from '@temporalio/client';
import { ensureSchedules, HOUSEKEEPING_SCHEDULE_ID, RECONCILE_SCHEDULE_ID } from '../../worker/schedules';
import { TASK_QUEUES } from '../../workflows/definitions';
import { stack } from '../helpers/stack';

describe('Temporal schedules', () => {
  it('registers the housekeeping schedule on the payments task queue, and registering again is harmless', async () => {
    const connection = await Connection.connect({ address: stack().config.temporal.address });
    try {
      const client = new Client({ connection, namespace: stack().config.temporal.namespace });
      await ensureSchedules(client);
      const description = await client.schedule.getHandle(HOUSEKEEPING_SCHEDULE_ID).describe();
      expect(description.action.type).to.equal('startWorkflow');
      if (description.action.type !== 'startWorkflow') return;
      expect(description.action.workflowType).to.equal('housekeepingWorkflow');
      expect(description.action.taskQueue).to.equal(TASK_QUEUES.payments);
    } finally {
      await connection.close();
    }
  });

  it('registers the unknown-outcome reconciler schedule on the payments task queue', async () => {
    const connection = await Connection.connect({ address: stack().config.temporal.address });
    try {
      const client = new Client({ connection, namespace: stack().config.temporal.namespace });
      await ensureSchedules(client);
      const description = await client.schedule.getHandle(RECONCILE_SCHEDULE_ID).describe();
      if (description.action.type !== 'startWorkflow') throw new Error('expected a startWorkflow action');
      expect(description.action.workflowType).to.equal('reconcileUnknownOutcomesWorkflow');
      expect(description.action.taskQueue).to.equal(TASK_QUEUES.payments);
    } finally {
      await connection.close();
    }
  });
});
