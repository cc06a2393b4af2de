/** Mocha root hooks: one real stack for the whole run. */
import { DefaultLogger } from '@temporalio/worker';
import { installTemporalRuntime } from '../../worker/telemetry';
import { startStack, stopStack } from './stack';
import { recordChildren } from './child-processes';
import { takeJournal } from './browser-journal';

// Worker state changes are noise in test output; warnings and errors still show. The worker's metrics endpoint
// serves the SDK's metrics as in production.
installTemporalRuntime({ logger: new DefaultLogger('WARN') });

/**
 * Two queries sent at once on one connection (e.g. Promise.all over a transaction's EntityManager): pg queues
 * them today, pg 9 will throw. Node warns once per process, so the test during which it first happens fails.
 */
let busyConnectionQuery: Error | undefined;
process.on('warning', (warning) => {
  if (/client is already executing a query/.test(warning.message)) busyConnectionQuery = warning;
});

export const mochaHooks = {
  async beforeAll(this: Mocha.Context) {
    this.timeout(10 * 60 * 1000);
    await startStack();
  },
  afterEach(this: Mocha.Context) {
    const browser = takeJournal();
    if (this.currentTest?.state === 'failed' && browser.length > 0) {
      console.log(`    what the browser did:\n${browser.map((line) => `      ${line}`).join('\n')}`);
    }
    // Tests start servers of their own (the time-skipping test server, the chaos part's Temporal and workers).
    recordChildren();
    const warning = busyConnectionQuery;
    busyConnectionQuery = undefined;
    if (warning) {
      throw new Error(`A query was sent on a connection busy with another one:\n${warning.stack ?? warning.message}`);
    }
  },
  async afterAll(this: Mocha.Context) {
    this.timeout(60 * 1000);
    await stopStack();
  },
};
