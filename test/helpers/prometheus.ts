/** Reading a Prometheus text scrape in tests: fetch an endpoint, sum the samples of a metric matching some labels. */
import { expect } from 'chai';

export async function scrape(url: string | null): Promise<string> {
  expect(url, 'a metrics endpoint').to.be.a('string');
  const res = await fetch(url!);
  expect(res.status).to.equal(200);
  expect(res.headers.get('content-type')).to.match(/^text\/plain/);
  return res.text();
}

/** The labels of one sample line (`name{a="x",b="y"} 3`). */
function labelsOf(line: string): Record<string, string> {
  const body = /\{(.*)\}/.exec(line)?.[1] ?? '';
  return Object.fromEntries([...body.matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]));
}

/** The sum of `name`'s samples whose labels include `labels` (0 when none). */
export function sampleSum(text: string, name: string, labels: Record<string, string> = {}): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const own = labelsOf(line);
    if (Object.entries(labels).every(([key, value]) => own[key] === value)) sum += Number(line.split(' ').at(-1));
  }
  return sum;
}
