/**
 * The Dashboard's stylesheet is one hand-merged file: an unclosed rule swallows every rule after it (a merge once
 * left `textarea.json {` open, and the 360 px card layout of the payments list silently stopped applying), and
 * neither esbuild nor prettier refuses it. Braces must balance outside comments, and never close more than opened.
 */
import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';

describe('Rule: the Dashboard stylesheet has no unclosed or stray brace', () => {
  it('every { in web/dashboard/src/styles.css is closed, in order', () => {
    const css = fs
      .readFileSync(path.join(__dirname, '../../web/dashboard/src/styles.css'), 'utf8')
      .replace(/\/\*[\s\S]*?\*\//g, '');
    let depth = 0;
    css.split('\n').forEach((line, index) => {
      for (const char of line) {
        if (char === '{') depth += 1;
        if (char === '}') depth -= 1;
        expect(depth, `line ${index + 1} closes a rule never opened`).to.be.at.least(0);
      }
      // Only @media (and the like) nest: a rule opened inside a rule inside a block is an unclosed one.
      expect(depth, `line ${index + 1}: a rule left open (${line.trim()})`).to.be.at.most(2);
    });
    expect(depth, 'a rule is left open at the end of the file').to.equal(0);
  });
});
