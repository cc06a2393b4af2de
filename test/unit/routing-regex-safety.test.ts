/** The conservative catastrophic-backtracking guard for routing regex conditions (api/modules/routing/regex-safety.ts). */
import { expect } from 'chai';
import { MAX_REGEX_LENGTH, regexProblem } from '../../api/modules/routing/regex-safety.rules';
import { seeded } from '../helpers/seeded';

describe('regexProblem (routing regex guard)', () => {
  const accepted = [
    '^visa$',
    '^(visa|mastercard)$',
    'ma(e|s)tro',
    '^[A-Z]{3}$',
    '^B',
    'R$',
    '\\d+',
    '^[a-z]+$',
    '(?:ab)+',
    '((ab)c)+',
    '^(?:US|CA|MX)$',
    '[(]+',
    '\\(a+\\)+',
    'a{2,5}b*',
    '^.{0,32}$',
    '(a)?',
    '(a|b)?',
    '^(?<brand>visa)$',
    '[+*?]+',
    'x{',
    'a{1}',
    '(ab){1}',
    '(a|b){0,1}',
  ];
  for (const source of accepted) {
    it(`accepts ${source}`, () => {
      expect(regexProblem(source)).to.equal(null);
    });
  }

  const refused: Array<[string, RegExp]> = [
    ['(a+)+', /catastrophic/],
    ['(a*)*', /catastrophic/],
    ['(a+)*$', /catastrophic/],
    ['(a|a)*', /catastrophic/],
    ['(a|ab)+', /catastrophic/],
    ['([a-z]+)*', /catastrophic/],
    ['(?:a+){2,}', /catastrophic/],
    ['(a{1,10}){1,10}', /catastrophic/],
    ['(\\w+\\s?)+$', /catastrophic/],
    ['((a+))+', /catastrophic/],
    ['(x(a|b))*', /catastrophic/],
    ['(a?){5}', /catastrophic/],
    ['(?<g>a+)+', /catastrophic/],
    ['(a+?)+?', /catastrophic/],
    ['(a)\\1', /backreferences/],
    ['(?<x>a)\\k<x>', /backreferences/],
    ['(?=a)a', /lookahead or lookbehind/],
    ['(?!a)b', /lookahead or lookbehind/],
    ['(?<=a)b', /lookahead or lookbehind/],
    ['(?<!a)b', /lookahead or lookbehind/],
    ['(', /not a valid/],
    ['[', /not a valid/],
    ['a**', /not a valid/],
    ['', /empty/],
    ['a'.repeat(MAX_REGEX_LENGTH + 1), /at most 256/],
  ];
  for (const [source, reason] of refused) {
    it(`refuses ${source.length > 40 ? `a ${source.length}-character pattern` : source}`, () => {
      expect(regexProblem(source)).to.match(reason);
    });
  }

  it('accepts a pattern of exactly 256 characters', () => {
    expect(regexProblem('a'.repeat(MAX_REGEX_LENGTH))).to.equal(null);
  });

  // Property: whatever the guard accepts runs fast on adversarial input (no exponential blow-up), over random
  // patterns built from the shapes that cause trouble.
  it('accepts only patterns that match adversarial inputs quickly (seeded random patterns)', function () {
    this.timeout(20_000);
    const random = seeded(20261121);
    const atoms = ['a', 'b', '\\w', '.', '[ab]', '\\d'];
    const quantifiers = ['', '', '*', '+', '?', '{2,}', '{1,3}'];
    const build = (depth: number): string => {
      const parts = 1 + Math.floor(random() * 3);
      let out = '';
      for (let i = 0; i < parts; i += 1) {
        const roll = random();
        let piece = atoms[Math.floor(random() * atoms.length)];
        if (depth < 3 && roll < 0.35) piece = `(${build(depth + 1)})`;
        else if (depth < 3 && roll < 0.5) piece = `(${build(depth + 1)}|${build(depth + 1)})`;
        out += piece + quantifiers[Math.floor(random() * quantifiers.length)];
      }
      return out;
    };
    let acceptedCount = 0;
    for (let i = 0; i < 400; i += 1) {
      const source = `^${build(0)}$`;
      if (regexProblem(source) !== null) continue;
      acceptedCount += 1;
      const regex = new RegExp(source);
      for (const input of ['a'.repeat(28) + '!', 'ab'.repeat(14) + '!', '1'.repeat(28) + 'x']) {
        const started = process.hrtime.bigint();
        regex.test(input);
        const ms = Number(process.hrtime.bigint() - started) / 1e6;
        expect(ms, `${source} on ${input}`).to.be.below(50);
      }
    }
    expect(acceptedCount).to.be.above(50);
  });
});
