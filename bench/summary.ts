/**
 * The table of issue 15, filled from one run's figures (each suite reports named figures, bench/harness.ts).
 * A row whose figures no suite measured says so instead of a number.
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

export const SUMMARY: SummaryRow[] = [
  ratioRow('`GET /customers/:id` vs bare Koa', 'customer_get', 0.15),
  ratioRow('idempotent replay `POST /customers` vs bare Koa', 'customer_replay', 0.1),
  ratioRow('`GET /health/live` vs bare Koa', 'health_live', 0.6),
  {
    figure: 'charge, 1 attempt, one client, p50',
    target: '≤ 100 ms',
    measured: (f) => (has(f, 'charge_single_1c.p50') ? `${f['charge_single_1c.p50']} ms` : undefined),
    met: (f) => f['charge_single_1c.p50'] <= 100,
  },
  {
    figure: 'charge overhead per extra cascade attempt, p50',
    target: '≤ 20 ms',
    measured: (f) =>
      has(f, 'charge_single_1c.p50', 'charge_cascade_1c.p50')
        ? `${((f['charge_cascade_1c.p50'] - f['charge_single_1c.p50']) / 2).toFixed(0)} ms`
        : undefined,
    met: (f) => (f['charge_cascade_1c.p50'] - f['charge_single_1c.p50']) / 2 <= 20,
  },
  {
    figure: 'charges/s at 10 connections (p99)',
    target: '≥ 60/s with p99 ≤ 500 ms',
    measured: (f) =>
      has(f, 'charge_single.rps')
        ? `${f['charge_single.rps'].toFixed(0)}/s (p99 ${f['charge_single.p99']} ms)`
        : undefined,
    met: (f) => f['charge_single.rps'] >= 60 && f['charge_single.p99'] <= 500,
  },
  {
    figure: 'webhook deliveries/s to a local receiver',
    target: '≥ 250/s; p50 ≤ 50 ms when idle',
    measured: (f) =>
      has(f, 'webhooks.per_s', 'webhooks_idle.p50')
        ? `${f['webhooks.per_s'].toFixed(0)}/s (commit→receipt p50 ${f['webhooks.p50']} ms in a burst, ${f['webhooks_idle.p50']} ms idle)`
        : undefined,
    met: (f) => f['webhooks.per_s'] >= 250 && f['webhooks_idle.p50'] <= 50,
  },
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
    `Issue 15 (${connections} connections unless stated; ratios against the bare Koa row of this run)`,
    '',
    '| figure | this run | target | |',
    '|---|---|---|---|',
    ...cells.map((line) => `| ${line.join(' | ')} |`),
  ];
}
