/**
 * Rule: the worker serves one Worker per task queue, and the test-clock queue's Worker has slots of its own, set by
 * TEST_CLOCK_WORKER_MAX_CONCURRENT_WORKFLOW_TASKS and TEST_CLOCK_WORKER_MAX_CONCURRENT_ACTIVITIES (small by default):
 * however many renewals an advance runs, it holds at most that many workflow tasks and activities at once, and the
 * payments and webhooks Workers keep theirs.
 */
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { ConfigError, loadConfig } from '../../domain/platform/config';
import { TASK_QUEUES } from '../../workflows/definitions';
import { workerSlotsOf } from '../../worker/main';

const base = {
  APP_ENV: 'local',
  DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none',
  TEMPORAL_ADDRESS: '127.0.0.1:1',
  ENCRYPTION_KEY: randomBytes(32).toString('base64'),
};
const configWith = (env: Record<string, string> = {}) => loadConfig({ ...base, ...env });

describe('Rule: the test-clock task queue has a Worker with its own, smaller slots', () => {
  it('defaults the test-clock Worker to 2 workflow tasks and 4 activities at once', () => {
    expect(workerSlotsOf(TASK_QUEUES.testClocks, configWith())).to.deep.equal({
      maxConcurrentWorkflowTaskExecutions: 2,
      maxConcurrentActivityTaskExecutions: 4,
    });
  });

  it('reads TEST_CLOCK_WORKER_MAX_CONCURRENT_WORKFLOW_TASKS and TEST_CLOCK_WORKER_MAX_CONCURRENT_ACTIVITIES', () => {
    const config = configWith({
      TEST_CLOCK_WORKER_MAX_CONCURRENT_WORKFLOW_TASKS: '3',
      TEST_CLOCK_WORKER_MAX_CONCURRENT_ACTIVITIES: '7',
    });
    expect(workerSlotsOf(TASK_QUEUES.testClocks, config)).to.deep.equal({
      maxConcurrentWorkflowTaskExecutions: 3,
      maxConcurrentActivityTaskExecutions: 7,
    });
  });

  it('refuses at start fewer than 1 activity or 2 workflow tasks (a caching Worker polls two queues)', () => {
    expect(() => configWith({ TEST_CLOCK_WORKER_MAX_CONCURRENT_ACTIVITIES: '0' })).to.throw(ConfigError);
    expect(() => configWith({ TEST_CLOCK_WORKER_MAX_CONCURRENT_WORKFLOW_TASKS: '1' })).to.throw(ConfigError);
  });

  it('leaves the payments and webhooks Workers on the SDK defaults', () => {
    expect(workerSlotsOf(TASK_QUEUES.payments, configWith())).to.deep.equal({});
    expect(workerSlotsOf(TASK_QUEUES.webhooks, configWith())).to.deep.equal({});
  });
});
