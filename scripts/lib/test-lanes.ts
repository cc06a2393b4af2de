/**
 * The two lanes of `npm test`. The unit lane (`npm run test:unit`, test/unit/.mocharc.json) runs without any
 * server, binary or network; the stack lane runs against the real stack test/helpers/hooks.ts starts. Every test
 * file runs in exactly one of them (test/unit/test-lanes.test.ts).
 */
export const UNIT_LANE_CONFIG = 'test/unit/.mocharc.json';
export const STACK_LANE = { spec: ['test/**/*.test.ts'], ignore: ['test/unit/**'] };

/** Set to `unit` by the unit lane's setup (test/helpers/unit-lane.ts); child processes inherit it. */
export const TEST_LANE_ENV = 'SWITCHYARD_TEST_LANE';

/**
 * Called first by everything that builds, fetches or starts a server or a tool binary. A fresh clone has none of
 * them cached, so a unit test reaching one would build for minutes and then time out; it fails at once instead.
 */
export function refuseInUnitLane(what: string): void {
  if (process.env[TEST_LANE_ENV] !== 'unit') return;
  throw new Error(
    `${what} refused: the unit lane (npm run test:unit) runs without servers, binaries or network; ` +
      'a test that needs them belongs in the stack lane (a folder of test/ other than test/unit/)',
  );
}
