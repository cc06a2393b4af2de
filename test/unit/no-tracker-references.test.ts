/**
 * Comments, test names and log strings state the rule they enforce, never an issue or review number: the issue
 * tracker and the reviews are not part of this repository, so a reader cannot resolve "issue 23", "review L7" or
 * "(N7)". This scans the code, tests, scripts, benches, web, deploy and CI files (docs/ is prose about the project's
 * history and is not scanned) and lists file:line for every such reference.
 */
import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');
const SCANNED = [
  ...['api', 'domain', 'db', 'activities', 'workflows', 'worker', 'scripts', 'test', 'web', 'bench', 'sandbox'],
  ...['deploy', '.ci', 'docker-compose.yml', 'Dockerfile', 'eslint.config.mjs', 'package.json'],
];
const SKIPPED_DIRS = new Set(['node_modules', 'dist', 'test-output']);
const TEXT = /\.(ts|tsx|js|mjs|cjs|css|html|json|ya?ml|sh|md)$|(^|\/)[^./]+$/;
/** This file spells the patterns it looks for. */
const SELF = path.relative(ROOT, __filename);

const REFERENCES: RegExp[] = [
  /\bissues?[ -]#?\d+/i, // issue 23, issues 22 and 23, issue-15, issue #5
  /\breviews?(?: finding)? #?[A-Z]?\d+\b/i, // review L7, review #17, review finding 2
  /\bfindings? #?\d+/i, // money-paths finding 2
  /\b(?:money-paths?|security|spec-audit|architecture|first-hour)[- ]review\b/i,
  /\b(?:money-paths|spec-audit|first-hour)\b|\breviews\/[\w-]+\.md\b/, // the review documents themselves
  // A finding id (N7, H2, M6, L16, I3, D33). A whole string literal such as 'M1' is data (a provider's merchant
  // account code), not a citation, so quotes on both sides do not count.
  /(?<![\w'"`])[NHMLID]\d{1,2}(?![\w'"`])/,
];

function referencesIn(text: string): number[] {
  return text.split('\n').flatMap((line, i) => (REFERENCES.some((pattern) => pattern.test(line)) ? [i + 1] : []));
}

function filesUnder(relative: string): string[] {
  const full = path.join(ROOT, relative);
  if (!fs.existsSync(full)) return [];
  if (!fs.statSync(full).isDirectory()) return TEXT.test(relative) ? [relative] : [];
  return fs
    .readdirSync(full)
    .filter((name) => !SKIPPED_DIRS.has(name))
    .flatMap((name) => filesUnder(path.join(relative, name)));
}

describe('Rule: comments and test names state the rule they enforce, never an issue or review number', () => {
  it('no scanned file cites an issue, a review or a finding id', () => {
    const found = SCANNED.flatMap(filesUnder)
      .filter((file) => file !== SELF)
      .flatMap((file) => referencesIn(fs.readFileSync(path.join(ROOT, file), 'utf8')).map((line) => `${file}:${line}`));
    expect(found, 'state the rule or the reason in words instead').to.deep.equal([]);
  });

  it('finds each form of reference', () => {
    const cited = [
      '// Only what routing can charge (issue 23 item 6).',
      "describe('Issue 16: the reliability suite', () => {",
      ' * the charge before issue-15',
      "it('keeps no card data (review L16)', async () => {",
      ' * Issue 29 (first hour, review #17 and #19): names next to ids',
      ' * holds for review (money-paths finding 2)',
      ' * Production links are https only (security review L17).',
      ' * (../shared/reviews/spec-audit.md) checked through HTTP',
      '  // A probe per circuit (N7).',
      '  // Scoped to the session (H2).',
    ];
    expect(cited.map((line) => referencesIn(line).length)).to.deep.equal(cited.map(() => 1));
  });

  it('leaves genuine names and words alone', () => {
    const genuine = [
      "callFor('provider_b', { merchant_account: 'M1' })",
      "await page.getByText('Connector provider_a #1').waitFor();",
      '// the review hold is provider_a scenario too.',
      " * VAULT_PRIVATE_KEY: an EC P-256 PKCS#8 key; T23:59:59Z; <h1>Payments</h1>; issueApiKey(em, { kind: 'secret' })",
      '  // A card held for review is pending; a refund issued twice is one refund.',
    ];
    expect(genuine.flatMap(referencesIn)).to.deep.equal([]);
  });
});
