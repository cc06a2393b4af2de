/**
 * `npm run test:model -- [--model subscriptions|transactions] --runs 500 [--seed 1] [--steps 10]`: a model-based
 * test with more sequences than `npm test` runs — the subscription engine's (test/workflows/subscription-model.test.ts,
 * the default) or the transaction state machine's (test/api/transaction-model.test.ts). Each sequence is named by
 * its seed; a failure prints the seed, the step and the steps before it, and `--seed N --runs 1` replays it.
 */
import { spawnSync } from 'node:child_process';
import { parseArgs } from 'node:util';
import { REPO_ROOT } from './lib/paths';

const MODELS: Record<string, string> = {
  subscriptions: 'test/workflows/subscription-model.test.ts',
  transactions: 'test/api/transaction-model.test.ts',
};

const { values } = parseArgs({
  options: {
    model: { type: 'string', default: 'subscriptions' },
    runs: { type: 'string', default: '100' },
    seed: { type: 'string', default: '1' },
    steps: { type: 'string' },
  },
});
const file = MODELS[values.model];
if (!file) {
  console.error(`--model must be one of ${Object.keys(MODELS).join(', ')}`);
  process.exit(2);
}
const result = spawnSync(process.execPath, [require.resolve('tsx/cli'), 'scripts/test.ts', file], {
  cwd: REPO_ROOT,
  stdio: 'inherit',
  env: {
    ...process.env,
    MODEL_RUNS: values.runs,
    MODEL_SEED: values.seed,
    ...(values.steps ? { MODEL_STEPS: values.steps } : {}),
  },
});
process.exit(result.status ?? 1);
