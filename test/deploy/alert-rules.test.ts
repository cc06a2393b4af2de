/**
 * deploy/prometheus/alerts.yml: every alert rule is checked by promtool and fed samples that must fire it (and
 * samples that must not) in deploy/prometheus/alerts.test.yml.
 */
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { resolvePromtool } from '../../scripts/lib/promtool';

const DIR = path.resolve(__dirname, '../../deploy/prometheus');

describe('deploy/prometheus alert rules', () => {
  let promtool: string;
  before(async function () {
    this.timeout(900_000);
    promtool = await resolvePromtool();
  });

  it('passes promtool check rules', async () => {
    const { stdout } = await promisify(execFile)(promtool, ['check', 'rules', 'alerts.yml'], { cwd: DIR });
    expect(stdout).to.match(/SUCCESS: 6 rules found/);
  });

  it('fires each alert on the samples of its test, and only there (promtool test rules)', async () => {
    const { stdout } = await promisify(execFile)(promtool, ['test', 'rules', 'alerts.test.yml'], { cwd: DIR });
    expect(stdout).to.include('SUCCESS');
  });

  it('has a test for every alert rule', () => {
    const rules = [...fs.readFileSync(path.join(DIR, 'alerts.yml'), 'utf8').matchAll(/- alert: (\w+)/g)].map(
      (m) => m[1],
    );
    const tested = fs.readFileSync(path.join(DIR, 'alerts.test.yml'), 'utf8');
    expect(rules).to.have.length(6);
    for (const rule of rules) expect(tested).to.include(`alertname: ${rule}`);
  });
});
