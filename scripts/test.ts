/**
 * `npm test`: makes sure the Temporal binaries, stripe-mock and caddy are at hand (building or fetching them the first
 * time, with progress), then runs every mocha test against the real stack test/helpers/hooks.ts starts.
 * Extra arguments go to mocha, e.g. `npm test -- --grep customers`.
 */
import { spawnSync } from 'node:child_process';
import { resolveTemporalCli, resolveTimeSkippingTestServer } from './lib/temporal-binaries';
import { REPO_ROOT, log } from './lib/paths';
import { resolveStripeMock } from './lib/stripe-mock';
import { resolveCaddy } from './lib/caddy';

async function main(): Promise<number> {
  const cli = await resolveTemporalCli();
  const testServer = await resolveTimeSkippingTestServer();
  // Only test/api/provider-a-stripe-mock.test.ts needs it: without it that file fails (saying why), not the run.
  const stripeMock = await resolveStripeMock().catch((error: Error) => {
    log(`stripe-mock unavailable: ${error.message}`);
    return undefined;
  });
  // Only test/deploy/caddyfile.test.ts needs it (to validate deploy/Caddyfile): without it that file skips, saying why.
  const caddy = await resolveCaddy().catch((error: Error) => {
    log(`caddy unavailable: ${error.message}`);
    return undefined;
  });
  log(`temporal CLI: ${cli ?? 'downloaded by @temporalio/testing'}; time-skipping server: ${testServer}`);
  const extra = process.argv.slice(2);
  const specs = extra.some((arg) => arg.endsWith('.ts')) ? [] : ['test/**/*.test.ts'];
  const result = spawnSync(process.execPath, [require.resolve('mocha/bin/mocha.js'), ...specs, ...extra], {
    cwd: REPO_ROOT,
    stdio: 'inherit',
    env: {
      ...process.env,
      ...(cli ? { TEMPORAL_CLI_PATH: cli } : {}),
      TEMPORAL_TEST_SERVER_PATH: testServer,
      ...(stripeMock ? { STRIPE_MOCK_PATH: stripeMock } : {}),
      ...(caddy ? { CADDY_PATH: caddy } : {}),
    },
  });
  return result.status ?? 1;
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
