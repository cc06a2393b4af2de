/** Formats bench results as an aligned text table and as markdown ready to paste into docs/benchmarks.md. */
import os from 'node:os';

export interface Row {
  scenario: string;
  requestsPerSecond: number;
  p50: number;
  p99: number;
  non2xx: number;
  /** Requests/s relative to the hello-world baseline. */
  ratio: number;
  /**
   * CPU per measured request, in microseconds, of the serving process (the API's or the baselines') and of
   * PostgreSQL: unlike requests/s, they hardly depend on how loaded the machine is.
   */
  cpuUs?: { serving: number; postgresql: number };
}

const HEADER = [
  'Scenario',
  'Req/s (avg)',
  'p50 (ms)',
  'p99 (ms)',
  'Non-2xx',
  'vs. hello world',
  'server CPU/req (µs)',
  'PostgreSQL CPU/req (µs)',
];

/** autocannon's latency histogram has 1 ms resolution. */
const ms = (value: number) => (value < 1 ? '<1' : value.toFixed(0));

function cells(row: Row): string[] {
  return [
    row.scenario,
    row.requestsPerSecond.toFixed(0),
    ms(row.p50),
    ms(row.p99),
    String(row.non2xx),
    `${row.ratio.toFixed(3)}×`,
    row.cpuUs ? row.cpuUs.serving.toFixed(0) : '–',
    row.cpuUs ? row.cpuUs.postgresql.toFixed(0) : '–',
  ];
}

export function machine(): string[] {
  const cpus = os.cpus();
  return [
    `CPU: ${cpus[0]?.model ?? 'unknown'}, ${cpus.length} cores`,
    `Memory: ${(os.totalmem() / 1024 ** 3).toFixed(1)} GiB`,
    `Node: ${process.version} (${os.platform()} ${os.release()})`,
    `Date: ${new Date().toISOString()}`,
  ];
}

export function textTable(rows: Row[]): string {
  const lines = [HEADER, ...rows.map(cells)];
  const widths = HEADER.map((_, i) => Math.max(...lines.map((line) => line[i].length)));
  const format = (line: string[]) =>
    line.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  ');
  return [format(lines[0]), widths.map((w) => '-'.repeat(w)).join('  '), ...lines.slice(1).map(format)].join('\n');
}

export function markdownTable(rows: Row[]): string {
  const line = (values: string[]) => `| ${values.join(' | ')} |`;
  return [
    line(HEADER),
    line(HEADER.map((_, i) => (i === 0 ? '---' : '---:'))),
    ...rows.map((row) => line(cells(row))),
  ].join('\n');
}
