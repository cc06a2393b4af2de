/** Mocha root hooks: one real stack for the whole run. */
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { startStack, stopStack } from './stack';

// Worker state changes are noise in test output; warnings and errors still show.
Runtime.install({ logger: new DefaultLogger('WARN') });

export const mochaHooks = {
  async beforeAll(this: Mocha.Context) {
    this.timeout(10 * 60 * 1000);
    await startStack();
  },
  async afterAll(this: Mocha.Context) {
    this.timeout(60 * 1000);
    await stopStack();
  },
};
