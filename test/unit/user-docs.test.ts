/**
 * Rule: the documents a user reads (README.md, the guides, and the pages they link: sandbox, webhooks, events) stand
 * on their own. They cite no internal document, issue or review a clone does not have, point nowhere outside the
 * repository, and every relative link resolves to a file of it.
 */
import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.join(__dirname, '..', '..');
const GUIDES = path.join(ROOT, 'docs', 'guides');
const USER_DOCS = [
  'README.md',
  'docs/sandbox.md',
  'docs/webhooks.md',
  'docs/events.md',
  ...fs.readdirSync(GUIDES).map((name) => `docs/guides/${name}`),
];

/** References to material a user does not have: the spec's documents, tracker issues, review findings, shared/. */
const INTERNAL = [
  /\bDocument [0-9]/,
  /\bissue #?[0-9]/i,
  /\breview(s)? [A-Z]+[0-9]/i,
  /\bfinding [A-Z]?[0-9]/i,
  /shared\//,
];

describe('Rule: user-facing docs stand on their own', () => {
  for (const file of USER_DOCS) {
    it(`${file}: cites no internal document, issue or review, and every relative link resolves`, () => {
      const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
      expect(INTERNAL.filter((pattern) => pattern.test(text)).map(String)).to.deep.equal([]);
      const broken = [...text.matchAll(/\]\(([^)#\s]+)(#[^)]*)?\)/g)]
        .map((match) => match[1])
        .filter((target) => !/^[a-z]+:/.test(target))
        .filter((target) => !fs.existsSync(path.resolve(path.dirname(path.join(ROOT, file)), target)));
      expect(broken).to.deep.equal([]);
    });
  }

  it('the guides index lists every guide', () => {
    const index = fs.readFileSync(path.join(GUIDES, 'README.md'), 'utf8');
    const guides = fs.readdirSync(GUIDES).filter((name) => name !== 'README.md');
    expect(guides.filter((name) => !index.includes(`](${name})`))).to.deep.equal([]);
  });
});
