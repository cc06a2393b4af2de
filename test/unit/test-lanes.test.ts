/**
 * Rule: `npm test` runs every test file exactly once, in one of its two lanes, and only the stack lane starts the
 * stack. Files are resolved the way mocha resolves them (its own collect-files), from the lanes' own definitions.
 */
import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import { STACK_LANE, UNIT_LANE_CONFIG } from '../../scripts/lib/test-lanes';
import { REPO_ROOT } from '../../scripts/lib/paths';

// mocha's own resolution of spec globs and ignores, so the check sees the files mocha would load.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const collectFiles = require('mocha/lib/cli/collect-files.cjs') as (options: object) => { files: string[] };

interface Lane {
  spec: string[];
  ignore?: string[];
  require?: string[];
}

function filesOf(lane: Lane): string[] {
  const cwd = process.cwd();
  process.chdir(REPO_ROOT);
  try {
    const { files } = collectFiles({ ...lane, ignore: lane.ignore ?? [], extension: ['ts'], file: [], sort: true });
    return files.map((file) => path.relative(REPO_ROOT, file));
  } finally {
    process.chdir(cwd);
  }
}

function testFiles(dir: string): string[] {
  return fs
    .readdirSync(path.join(REPO_ROOT, dir), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.test.ts'))
    .map((file) => path.join(dir, file));
}

const unitLane = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, UNIT_LANE_CONFIG), 'utf8')) as Lane;

describe('Rule: npm test runs every test file exactly once, in the unit lane or the stack lane', () => {
  it('every *.test.ts file under test/ is in exactly one of the two lanes', () => {
    const runs = [...filesOf(unitLane), ...filesOf(STACK_LANE)];
    const twice = runs.filter((file, index) => runs.indexOf(file) !== index);
    expect(twice, 'run by both lanes').to.deep.equal([]);
    expect([...runs].sort()).to.deep.equal(testFiles('test').sort());
  });

  it('the unit lane loads the unit-lane guard and never the stack hooks', () => {
    expect(unitLane.require).to.include('test/helpers/unit-lane.ts');
    expect(unitLane.require).not.to.include('test/helpers/hooks.ts');
  });
});
