/**
 * `npm run bench` ends with the performance goals' table, each row met or not from the run's named figures. A row must
 * say "not measured" rather than a number when its figures are missing, and judge met/not met by its own goal.
 */
import { expect } from 'chai';
import { summaryTable } from '../../bench/summary';

/** The figures of the 2026-11-27 full idle run (docs/benchmarks.md), as the suites name them. */
const RUN: Record<string, number> = {
  'charge_single.rps': 14.2,
  'ceiling_lal.rps': 46.7,
  'charge_API_in_the_worker_process.cpu_ms': 88.9,
  'charge_API_in_its_own_process.cpu_ms': 107.8,
  'charge_API_in_the_worker_process_1c.p50': 93,
  'charge_API_in_its_own_process_1c.p50': 88,
  'charge_single_1c.p50': 104,
  'charge_cascade_1c.p50': 146,
  'renewals.per_s': 10.8,
  'renewals.due': 1000,
  'sleeping.count': 10_000,
  'sleeping.rss_at_cache_mib': 1393,
  'sleeping.rss_last_mib': 1267,
  'customer_get.ratio': 0.169,
  'customer_get.rps': 1681,
  'customer_get.baseline': 9956,
  'customer_get.p50': 5,
  'customer_replay.ratio': 0.158,
  'customer_replay.rps': 1263,
  'customer_replay.baseline': 7992,
  'customer_replay.p50': 7,
};

const rowOf = (table: string[], figure: string) => {
  const row = table.find((line) => line.startsWith(`| ${figure}`));
  if (!row) throw new Error(`no row for ${figure}`);
  return row.split('|').map((cell) => cell.trim());
};

describe("Rule: the bench's summary judges each row by its own goal", () => {
  const table = summaryTable(RUN, 10);

  it('the charge share of the no-op ceiling is computed from the same run and not met at 30 %', () => {
    const [, , measured, , verdict] = rowOf(table, '1-attempt charges/s');
    expect(measured).to.equal('14.2/s = 30.4 % of 46.7/s');
    expect(verdict).to.equal('NOT met');
  });

  it('sleeping workflows are met when RSS at 10,000 stays within 10 % of RSS at the cache size', () => {
    expect(rowOf(table, 'worker RSS')[4]).to.equal('met');
    const grown = summaryTable({ ...RUN, 'sleeping.rss_last_mib': 1393 * 1.2 }, 10);
    expect(rowOf(grown, 'worker RSS')[4]).to.equal('NOT met');
  });

  it('each extra attempt is half the difference between the 3- and 1-attempt one-client p50s', () => {
    expect(rowOf(table, 'each extra cascade attempt')[2]).to.equal('21 ms');
  });

  it('a row whose figures no suite measured says so instead of a verdict', () => {
    const partial = summaryTable(
      { 'customer_get.ratio': 0.3, 'customer_get.rps': 3000, 'customer_get.baseline': 10_000, 'customer_get.p50': 2 },
      10,
    );
    expect(rowOf(partial, 'renewals/s')[2]).to.equal('not measured in this run');
    expect(rowOf(partial, '`GET /customers/:id`')[4]).to.equal('met');
  });

  it('a read is judged against its floor (bare Koa + pg, the same row) by requests/s, with CPU per request shown', () => {
    const read = {
      'customer_get.rps': 1974,
      'customer_get.floor': 4276,
      'customer_get.floor_ratio': 1974 / 4276,
      'customer_get.cpu_us': 414,
      'customer_get.floor_cpu_us': 160,
    };
    const [, , measured, , verdict] = rowOf(summaryTable(read, 10), '`GET /customers/:id` vs bare Koa + pg');
    expect(measured).to.equal('1974 req/s = 46.2 % of 4276; serving process CPU/request 414 µs vs 160 µs = 38.6 %');
    expect(verdict).to.equal('NOT met');
    const atFloor = summaryTable({ ...read, 'customer_get.floor_ratio': 0.7 }, 10);
    expect(rowOf(atFloor, '`GET /customers/:id` vs bare Koa + pg')[4]).to.equal('met');
  });
});
