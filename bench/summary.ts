/**
 * The table of the current performance goals (earlier goals, met or superseded, are in docs/benchmarks.md),
 * filled from one run's figures (each suite reports named figures, bench/harness.ts). A row whose figures no suite
 * measured says so instead of a number.
 */
type Figures = Record<string, number>;

interface SummaryRow {
  figure: string;
  target: string;
  /** The measured value as text, or undefined when the figures are missing. */
  measured(f: Figures): string | undefined;
  met(f: Figures): boolean;
}

const pct = (ratio: number) => `${(ratio * 100).toFixed(1)} %`;
const has = (f: Figures, ...names: string[]) => names.every((name) => Number.isFinite(f[name]));

function ratioRow(figure: string, name: string, target: number): SummaryRow {
  return {
    figure,
    target: `≥ ${target * 100} %`,
    measured: (f) =>
      has(f, `${name}.ratio`)
        ? `${f[`${name}.rps`].toFixed(0)} req/s = ${pct(f[`${name}.ratio`])} of ${f[`${name}.baseline`].toFixed(0)} (p50 ${f[`${name}.p50`]} ms)`
        : undefined,
    met: (f) => f[`${name}.ratio`] >= target,
  };
}

/**
 * A read against its floor, bare Koa + pg reading the same row measured right before it: requests/s, and the
 * serving process's CPU per request (the floor's over the read's), which the machine's load hardly moves.
 */
function floorRow(figure: string, name: string, target: number): SummaryRow {
  return {
    figure,
    target: `≥ ${target * 100} %`,
    measured: (f) =>
      has(f, `${name}.floor_ratio`)
        ? `${f[`${name}.rps`].toFixed(0)} req/s = ${pct(f[`${name}.floor_ratio`])} of ${f[`${name}.floor`].toFixed(0)}` +
          (has(f, `${name}.cpu_us`, `${name}.floor_cpu_us`)
            ? `; serving process CPU/request ${f[`${name}.cpu_us`].toFixed(0)} µs vs ${f[`${name}.floor_cpu_us`].toFixed(0)} µs = ${pct(f[`${name}.floor_cpu_us`] / f[`${name}.cpu_us`])}`
            : '')
        : undefined,
    met: (f) => f[`${name}.floor_ratio`] >= target,
  };
}

/** A row read from one figure, met when it is at most (or at least) the target. */
function figureRow(figure: string, name: string, unit: string, bound: '≤' | '≥', target: number): SummaryRow {
  return {
    figure,
    target: `${bound} ${target}${unit}`,
    measured: (f) => (has(f, name) ? `${f[name].toFixed(1)}${unit}` : undefined),
    met: (f) => (bound === '≤' ? f[name] <= target : f[name] >= target),
  };
}

const IN_PROCESS = 'charge_API_in_the_worker_process';
const OWN_PROCESS = 'charge_API_in_its_own_process';

export const SUMMARY: SummaryRow[] = [
  {
    figure: '1-attempt charges/s at 10 connections, share of the no-op workflow of the same shape',
    target: '≥ 60 %',
    measured: (f) =>
      has(f, 'charge_single.rps', 'ceiling_lal.rps')
        ? `${f['charge_single.rps'].toFixed(1)}/s = ${pct(f['charge_single.rps'] / f['ceiling_lal.rps'])} of ${f['ceiling_lal.rps'].toFixed(1)}/s`
        : undefined,
    met: (f) => f['charge_single.rps'] / f['ceiling_lal.rps'] >= 0.6,
  },
  figureRow(
    'CPU per charge, all processes, 10 connections, API in the worker process',
    `${IN_PROCESS}.cpu_ms`,
    ' ms',
    '≤',
    50,
  ),
  figureRow(
    'CPU per charge, all processes, 10 connections, API in its own process',
    `${OWN_PROCESS}.cpu_ms`,
    ' ms',
    '≤',
    50,
  ),
  figureRow('one charge, one client, p50, API in the worker process', `${IN_PROCESS}_1c.p50`, ' ms', '≤', 45),
  figureRow('one charge, one client, p50, API in its own process', `${OWN_PROCESS}_1c.p50`, ' ms', '≤', 60),
  {
    figure: 'each extra cascade attempt, one client, p50',
    target: '≤ 12 ms',
    measured: (f) =>
      has(f, 'charge_single_1c.p50', 'charge_cascade_1c.p50')
        ? `${((f['charge_cascade_1c.p50'] - f['charge_single_1c.p50']) / 2).toFixed(0)} ms`
        : undefined,
    met: (f) => (f['charge_cascade_1c.p50'] - f['charge_single_1c.p50']) / 2 <= 12,
  },
  {
    figure: 'renewals/s, subscriptions due at one instant',
    target: '≥ 100/s with 1,000 due',
    measured: (f) =>
      has(f, 'renewals.per_s', 'renewals.due')
        ? `${f['renewals.per_s'].toFixed(1)}/s with ${f['renewals.due']} due`
        : undefined,
    met: (f) => f['renewals.per_s'] >= 100 && f['renewals.due'] >= 1000,
  },
  {
    figure: 'worker RSS with sleeping subscription workflows, from the cache size to the last sample',
    target: 'flat (≤ +10 %) at 10,000',
    measured: (f) =>
      has(f, 'sleeping.count', 'sleeping.rss_at_cache_mib', 'sleeping.rss_last_mib')
        ? `${f['sleeping.rss_at_cache_mib'].toFixed(0)} → ${f['sleeping.rss_last_mib'].toFixed(0)} MiB at ${f['sleeping.count']}`
        : undefined,
    met: (f) => f['sleeping.count'] >= 10_000 && f['sleeping.rss_last_mib'] <= 1.1 * f['sleeping.rss_at_cache_mib'],
  },
  ratioRow('`GET /customers/:id` vs bare Koa', 'customer_get', 0.25),
  ratioRow('idempotent replay `POST /customers` vs bare Koa', 'customer_replay', 0.2),
  floorRow('`GET /customers/:id` vs bare Koa + pg (the same row)', 'customer_get', 0.7),
  floorRow('idempotent replay `POST /customers` vs bare Koa + pg (the same row)', 'customer_replay', 0.6),
];

export function summaryTable(figures: Figures, connections: number): string[] {
  const cells = SUMMARY.map((row) => {
    const measured = row.measured(figures);
    return [
      row.figure,
      measured ?? 'not measured in this run',
      row.target,
      measured ? (row.met(figures) ? 'met' : 'NOT met') : '–',
    ];
  });
  return [
    `Performance goals (${connections} connections unless stated; ratios against rows of this run)`,
    '',
    '| figure | this run | target | |',
    '|---|---|---|---|',
    ...cells.map((line) => `| ${line.join(' | ')} |`),
  ];
}
