/**
 * The dunning schedule is deployment configuration (SUBSCRIPTION_DUNNING_SCHEDULE_DAYS), validated when the
 * process starts: a bad value stops the API or worker at start, never a subscription months later.
 */
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { ConfigError, loadConfig } from '../../domain/platform/config';

const REPO_ROOT = path.resolve(__dirname, '../..');
const base = {
  APP_ENV: 'local',
  DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none',
  TEMPORAL_ADDRESS: '127.0.0.1:1',
  ENCRYPTION_KEY: randomBytes(32).toString('base64'),
};
const schedule = (value?: string) =>
  loadConfig({ ...base, ...(value === undefined ? {} : { SUBSCRIPTION_DUNNING_SCHEDULE_DAYS: value }) }).subscriptions
    .dunningScheduleDays;

describe('Dunning schedule is deployment configuration, validated at start', () => {
  it('defaults to retries after 1, 3, 5 and 7 days, and reads SUBSCRIPTION_DUNNING_SCHEDULE_DAYS', () => {
    expect(schedule()).to.deep.equal([1, 3, 5, 7]);
    expect(schedule('')).to.deep.equal([1, 3, 5, 7]);
    expect(schedule('2, 4,10')).to.deep.equal([2, 4, 10]);
    expect(schedule('3')).to.deep.equal([3]);
  });

  it('refuses a schedule that is not 1 to 10 strictly increasing whole days within a year', () => {
    for (const bad of ['0', '1,1', '3,1', '1.5', 'x', '1,,3', '400', '1,2,3,4,5,6,7,8,9,10,11', '-1']) {
      expect(() => schedule(bad), bad).to.throw(ConfigError, /SUBSCRIPTION_DUNNING_SCHEDULE_DAYS/);
    }
  });

  it('worker/main.ts started with a bad schedule exits with the configuration error before connecting', function () {
    this.timeout(60_000);
    const result = spawnSync(process.execPath, ['--import', 'tsx', 'worker/main.ts'], {
      cwd: REPO_ROOT,
      env: { PATH: process.env.PATH ?? '', ...base, SUBSCRIPTION_DUNNING_SCHEDULE_DAYS: '7,3' },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(result.status, result.stderr).to.equal(1);
    expect(result.stderr).to.include('SUBSCRIPTION_DUNNING_SCHEDULE_DAYS');
  });
});
