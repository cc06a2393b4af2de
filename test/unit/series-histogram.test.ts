/**
 * The API's request-duration histogram records without allocating per observation, and what it serves is what a
 * prom-client Histogram fed the same observations serves: the Prometheus text a scraper and the alert rules read.
 */
import { expect } from 'chai';
import { Histogram, Registry } from 'prom-client';
import { SeriesHistogram } from '../../domain/platform/metrics';

const BOUNDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const OBSERVED: Array<[Record<'method' | 'route' | 'status', string>, number[]]> = [
  [{ method: 'GET', route: '/api/v1/customers/:id', status: '200' }, [0.003, 0.005, 0.0051, 0.2, 31, 1e-7]],
  [{ method: 'POST', route: '/api/v1/transactions', status: '201' }, [0.4, 0.4, 2.5]],
  [{ method: 'GET', route: 'unmatched', status: '404' }, []],
];

describe('SeriesHistogram: request durations served as a prom-client histogram serves them', () => {
  it('serves the same Prometheus text as a prom-client Histogram fed the same observations', async () => {
    const [ours, theirs] = [new Registry(), new Registry()];
    const histogram = new SeriesHistogram('switchyard_test_seconds', 'Test durations', BOUNDS, ours);
    const reference = new Histogram({
      name: 'switchyard_test_seconds',
      help: 'Test durations',
      labelNames: ['method', 'route', 'status'],
      buckets: BOUNDS,
      registers: [theirs],
    });
    for (const [labels, values] of OBSERVED) {
      const series = histogram.series(labels);
      reference.zero(labels);
      for (const value of values) {
        series.observe(value);
        reference.observe(labels, value);
      }
    }
    expect(await ours.metrics()).to.equal(await theirs.metrics());
  });

  it('starts every series from zero again on reset, as prom-client does', async () => {
    const registry = new Registry();
    const histogram = new SeriesHistogram('switchyard_test_seconds', 'Test durations', BOUNDS, registry);
    const series = histogram.series({ method: 'GET', route: '/x', status: '200' });
    series.observe(0.2);
    registry.resetMetrics();
    expect(await registry.metrics()).to.include(
      'switchyard_test_seconds_count{method="GET",route="/x",status="200"} 0',
    );
  });
});
