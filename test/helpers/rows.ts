/** Row-by-row tests for a provider's mapping table: one `it` per expected row, plus one proving no row is untested. */
import { expect } from 'chai';

export function rowByRow<V>(
  table: Readonly<Record<string, V>>,
  expected: Readonly<Record<string, V>>,
  title: (key: string, value: V) => string,
  check: (key: string, value: V) => void,
): void {
  it('has an expectation for every row of the table', () => {
    expect(Object.keys(expected)).to.include.members(Object.keys(table));
  });
  for (const [key, value] of Object.entries(expected)) it(title(key, value), () => check(key, value));
}

/** A fake provider answer for the transformers. */
export const answer = (status: number, body: Record<string, unknown> | null) => ({ status, body });
