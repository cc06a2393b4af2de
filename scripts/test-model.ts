/**
 * `npm run test:model -- --runs 500 [--seed 1] [--steps 10]`: the subscription model-based test
 * (test/workflows/subscription-model.test.ts) with more sequences than `npm test` runs. Each sequence is named by
 * its seed; a failure prints the seed, the step and the steps before it, and `--seed N --runs 1` replays it.
 */
import { spawnSync } from 'node:child_process';
import { parseArgs } from 'node:util';
import { REPO_ROOT } from './lib/paths';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '100' },
    seed: { type: 'string', default: '1' },
    steps: { type: 'string' },
  },
});
const result = spawnSync(
  process.execPath,
  [require.resolve('tsx/cli'), 'scripts/test.ts', 'test/workflows/subscription-model.test.ts'],
  {
    cwd: REPO_ROOT,
    stdio: 'inherit',
    env: {
      ...process.env,
      MODEL_RUNS: values.runs,
      MODEL_SEED: values.seed,
      ...(values.steps ? { MODEL_STEPS: values.steps } : {}),
    },
  },
);
process.exit(result.status ?? 1);
