/**
 * The alert rules and the dashboard (deploy/) name only metrics Switchyard serves: a renamed metric cannot leave an
 * alert silently matching nothing.
 */
import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import { apiMetrics, processMetrics, workerMetrics } from '../../domain/platform/metrics';

const ROOT = path.resolve(__dirname, '../..');
const SUFFIXES = /_(bucket|count|sum)$/;

async function servedNames(): Promise<Set<string>> {
  const names = new Set<string>();
  for (const registry of [apiMetrics, processMetrics, workerMetrics])
    for (const metric of await registry.getMetricsAsJSON()) names.add(metric.name);
  return names;
}

const referenced = (file: string) =>
  [...new Set(fs.readFileSync(path.join(ROOT, file), 'utf8').match(/switchyard_[a-z0-9_]+/g) ?? [])].map((name) =>
    name.replace(SUFFIXES, ''),
  );

describe('Rule: alerts and the dashboard name only metrics the processes serve', () => {
  for (const file of ['deploy/prometheus/alerts.yml', 'deploy/grafana/switchyard-dashboard.json']) {
    it(`names served metrics only in ${file}`, async () => {
      const served = await servedNames();
      const names = referenced(file);
      expect(names).to.not.be.empty;
      expect(names.filter((name) => !served.has(name))).to.deep.equal([]);
    });
  }

  it('the dashboard is Grafana JSON with one Prometheus query per panel', () => {
    const dashboard = JSON.parse(fs.readFileSync(path.join(ROOT, 'deploy/grafana/switchyard-dashboard.json'), 'utf8'));
    expect(dashboard.panels.length).to.be.greaterThan(8);
    for (const panel of dashboard.panels) expect(panel.targets[0].expr).to.be.a('string');
  });
});
