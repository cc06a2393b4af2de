/**
 * Rule: one card transaction's path through the server stays written down and short. docs/architecture.md
 * ("One charge, end to end") lists, step by step, every server file the transaction runs through; each listed file
 * exists, each step's n is the number of files it lists, no file is listed twice, and the server total may not pass
 * CHARGE_PATH_CAP. A file that joins the path is listed in its step (and justified there) or merged where a reader
 * already looks; the cap only goes down.
 */
import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../../scripts/lib/paths';

const CHARGE_PATH_CAP = 80;
const SECTION = '## One charge, end to end';

interface Step {
  id: string;
  files: string[];
  n: number;
}

/** The section's table rows: `| <step> | <what and why> | <files> | <n> |`; step `S` is the sandbox, counted apart. */
function chargePath(): { steps: Step[]; statedTotal: number | undefined } {
  const doc = fs.readFileSync(path.join(REPO_ROOT, 'docs/architecture.md'), 'utf8');
  const start = doc.indexOf(`\n${SECTION}\n`);
  if (start < 0) return { steps: [], statedTotal: undefined };
  const end = doc.indexOf('\n## ', start + SECTION.length + 1);
  const section = doc.slice(start, end < 0 ? undefined : end);
  const steps = section
    .split('\n')
    .map((line) => /^\|\s*(\d+|S)\s*\|(.*)\|(.*)\|\s*(\d+)\s*\|$/.exec(line))
    .filter((match): match is RegExpExecArray => match !== null)
    .map(([, id, , files, n]) => ({
      id,
      files: [...files.matchAll(/`([^`]+\.ts)`/g)].map((file) => file[1]),
      n: Number(n),
    }));
  const total = /\*\*Total: (\d+) server files\*\*/.exec(section);
  return { steps, statedTotal: total ? Number(total[1]) : undefined };
}

describe('the charge path (docs/architecture.md, "One charge, end to end")', () => {
  const { steps, statedTotal } = chargePath();
  const server = steps.filter((step) => step.id !== 'S');
  const listed = steps.flatMap((step) => step.files);

  it('lists the path step by step, with its server total', () => {
    expect(server.length).to.be.greaterThan(0);
    expect(server.map((step) => Number(step.id))).to.deep.equal(server.map((_, index) => index + 1));
    expect(statedTotal).to.equal(
      server.reduce((sum, step) => sum + step.n, 0),
      'the stated total is the sum of the steps',
    );
  });

  it('lists only files that exist', () => {
    expect(listed).to.not.be.empty;
    const missing = listed.filter((file) => !fs.existsSync(path.join(REPO_ROOT, file)));
    expect(missing, 'listed but absent: merged, renamed or gone? update the list').to.deep.equal([]);
  });

  it("gives each step its files' count, and lists each file once", () => {
    for (const step of steps) expect(step.files.length, `step ${step.id}`).to.equal(step.n);
    expect(listed.filter((file, index) => listed.indexOf(file) !== index)).to.deep.equal([]);
  });

  it(`keeps the server files on the path at ${CHARGE_PATH_CAP} or fewer`, () => {
    expect(statedTotal).to.be.a('number');
    expect(statedTotal).to.be.at.most(CHARGE_PATH_CAP);
  });
});
