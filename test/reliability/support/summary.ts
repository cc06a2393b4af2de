/**
 * One summary line per part, in the fixed format `npm run test:reliability` collects and repeats at the end:
 * `[reliability] <part>: key=value, key=value`.
 */
export function reportSummary(part: string, figures: Record<string, string | number>): void {
  const text = Object.entries(figures)
    .map(([key, value]) => `${key}=${value}`)
    .join(', ');
  console.log(`[reliability] ${part}: ${text}`);
}

/** A size knob: an environment variable (documented in docs/reliability.md) or the CI default. */
export function sizeFrom(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0) throw new Error(`${name} must be a non-negative number, got ${raw}`);
  return value;
}
