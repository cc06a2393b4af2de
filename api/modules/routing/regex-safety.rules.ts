/**
 * A conservative guard for routing-condition regexes. JavaScript's engine backtracks, so a pattern with
 * ambiguous repetition — (a+)+, (a|a)*, (\w+\s?)+ — can take exponential time on a crafted input. Routing runs
 * on every charge, so we refuse any pattern that *could* be ambiguous in that way rather than trying to prove
 * it is:
 *   - at most MAX_REGEX_LENGTH characters, and it must compile (no flags);
 *   - no backreferences (\1, \k<name>) and no lookaround ((?=, (?!, (?<=, (?<!);
 *   - no repeated group (*, +, {n,}, {n,m} with m > 1) that contains a quantifier or an alternation at any
 *     depth — (a+)+, (a|b)*, ((ab)?c)+ and (?:x{2}){2,} are all refused.
 * Harmless patterns are sometimes refused (e.g. (visa|elo)+); the routing fields are short codes, so a pattern
 * never needs those shapes. Character classes, anchors, simple quantified atoms and unrepeated alternation
 * ((visa|mastercard), ^[A-Z]{2}$) are fine.
 */

export const MAX_REGEX_LENGTH = 256;

interface Frame {
  hasQuantifier: boolean;
  hasAlternation: boolean;
}

type Atom = { kind: 'simple' } | { kind: 'group'; frame: Frame } | null;

interface Quantifier {
  length: number;
  /** May match its atom more than once. */
  repeats: boolean;
}

function quantifierAt(source: string, index: number): Quantifier | null {
  const char = source[index];
  if (char === '*' || char === '+') return { length: 1, repeats: true };
  if (char === '?') return { length: 1, repeats: false };
  if (char !== '{') return null;
  // Outside unicode mode a `{` that isn't a well-formed bound is a literal character.
  const match = /^\{(\d+)(,(\d*))?\}/.exec(source.slice(index));
  if (!match) return null;
  const max = match[2] === undefined ? Number(match[1]) : match[3] === '' ? Infinity : Number(match[3]);
  return { length: match[0].length, repeats: max > 1 };
}

/** Why the pattern is refused, or null when it is accepted. */
export function regexProblem(source: string): string | null {
  if (source.length === 0) return 'must not be empty';
  if (source.length > MAX_REGEX_LENGTH) return `must be at most ${MAX_REGEX_LENGTH} characters`;
  try {
    new RegExp(source);
  } catch {
    return 'is not a valid regular expression';
  }

  const stack: Frame[] = [{ hasQuantifier: false, hasAlternation: false }];
  const top = () => stack[stack.length - 1];
  let atom: Atom = null;
  let i = 0;
  while (i < source.length) {
    const char = source[i];
    if (char === '\\') {
      const next = source[i + 1] ?? '';
      if (/[1-9]/.test(next) || (next === 'k' && source[i + 2] === '<')) return 'must not use backreferences';
      i += 2;
      atom = { kind: 'simple' };
      continue;
    }
    if (char === '[') {
      i += 1;
      if (source[i] === '^') i += 1;
      while (i < source.length && source[i] !== ']') i += source[i] === '\\' ? 2 : 1;
      i += 1;
      atom = { kind: 'simple' };
      continue;
    }
    if (char === '(') {
      if (/^\(\?(=|!|<=|<!)/.test(source.slice(i))) return 'must not use lookahead or lookbehind assertions';
      stack.push({ hasQuantifier: false, hasAlternation: false });
      if (source.startsWith('(?:', i)) i += 3;
      else if (source.startsWith('(?<', i)) i = source.indexOf('>', i) + 1;
      else i += 1;
      atom = null;
      continue;
    }
    if (char === ')') {
      const frame = stack.pop() as Frame;
      top().hasQuantifier ||= frame.hasQuantifier;
      top().hasAlternation ||= frame.hasAlternation;
      atom = { kind: 'group', frame };
      i += 1;
      continue;
    }
    if (char === '|') {
      top().hasAlternation = true;
      atom = null;
      i += 1;
      continue;
    }
    const quantifier = quantifierAt(source, i);
    if (quantifier) {
      i += quantifier.length;
      if (source[i] === '?') i += 1; // lazy modifier
      if (quantifier.repeats && atom?.kind === 'group' && (atom.frame.hasQuantifier || atom.frame.hasAlternation)) {
        return 'must not repeat a group that contains a quantifier or an alternation (catastrophic backtracking)';
      }
      top().hasQuantifier = true;
      atom = null;
      continue;
    }
    atom = char === '^' || char === '$' ? null : { kind: 'simple' };
    i += 1;
  }
  return null;
}
