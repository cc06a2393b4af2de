/** Mocha root hooks: one real stack for the whole run. */
import { startStack, stopStack } from './stack';

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
