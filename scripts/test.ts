/**
 * `npm test`: every test file once. First the unit lane (test/unit/, no server, binary or network), then the stack
 * lane: makes sure the Temporal binaries, stripe-mock and caddy are at hand (building or fetching them the first
 * time, with progress) and runs every other test file against the real stack test/helpers/hooks.ts starts.
 * Extra arguments go to mocha, e.g. `npm test -- --grep customers`; naming files runs only those, in the stack lane.
 */
import { spawnSync } from 'node:child_process';
import { resolveTemporalCli, resolveTimeSkippingTestServer } from './lib/temporal-binaries';
import { REPO_ROOT, log } from './lib/paths';
import { resolveStripeMock } from './lib/stripe-mock';
import { resolveCaddy } from './lib/caddy';
import { STACK_LANE, UNIT_LANE_CONFIG } from './lib/test-lanes';

function mocha(args: string[], env: NodeJS.ProcessEnv = process.env): number {
  const result = spawnSync(process.execPath, [require.resolve('mocha/bin/mocha.js'), ...args], {
    cwd: REPO_ROOT,
    stdio: 'inherit',
    env,
  });
  return result.status ?? 1;
}

async function main(): Promise<number> {
  const extra = process.argv.slice(2);
  const namedFiles = extra.some((arg) => arg.endsWith('.ts'));
  if (!namedFiles) {
    // The unit lane fails in seconds; the stack lane would take minutes to say the same.
    const unit = mocha(['--config', UNIT_LANE_CONFIG, ...extra]);
    if (unit !== 0) {
      log('the unit lane failed; the stack lane was not run');
      return unit;
    }
  }
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
  const lane = namedFiles ? [] : [...STACK_LANE.spec, ...STACK_LANE.ignore.flatMap((glob) => ['--ignore', glob])];
  return mocha([...lane, ...extra], {
    ...process.env,
    ...(cli ? { TEMPORAL_CLI_PATH: cli } : {}),
    TEMPORAL_TEST_SERVER_PATH: testServer,
    ...(stripeMock ? { STRIPE_MOCK_PATH: stripeMock } : {}),
    ...(caddy ? { CADDY_PATH: caddy } : {}),
  });
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
