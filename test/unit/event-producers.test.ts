/**
 * Every event type of the catalog has a producer in the code, and no producer emits a type outside it — checked
 * by a static scan of the source with the TypeScript parser (so comments, docs and type unions do not count).
 *
 * How it works (docs/events.md, "How the catalog is checked against the code"):
 * 1. Every call of `recordEvent(em, {type, …})` in api/, activities/, domain/, workflows/ and worker/ is found.
 *    Its `type` must be a string literal, a parameter typed as a union of string literals (each member counts),
 *    or the `type` of one of the two table-driven writers below. Any other form fails the test, so a new producer
 *    cannot hide behind a variable.
 * 2. The transaction writer (domain/transactions/transactions.transitions.ts) records what the state table
 *    says: TRANSACTION_MOVES is imported and every event its rules can record is computed (a rule with
 *    `emits: 'status'` records `transaction.<to>`; a `by_refunds` target can be any state the refunds say).
 * 3. The subscription writer (domain/subscriptions/subscriptions.steps.ts) records a move's `events`: every
 *    `events: [...]` array literal under workflows/ and domain/subscriptions/ is read (its elements must be
 *    string literals).
 * 4. Nothing else may write the events table: `em.create(EventSchema …)`, `insert into events` and an
 *    `events.outbox` writer other than recordEvent fail the test.
 */
import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { EVENT_TYPES } from '../../domain/events/events.outbox';
import { TRANSACTION_MOVES } from '../../domain/transactions/transactions.state-table';

const ROOT = path.join(__dirname, '../..');
const SOURCE_DIRS = ['api', 'activities', 'domain', 'workflows', 'worker'];
const TRANSACTION_WRITER = 'domain/transactions/transactions.transitions.ts';
const SUBSCRIPTION_WRITER = 'domain/subscriptions/subscriptions.steps.ts';
const MOVE_EVENT_DIRS = ['workflows/', 'domain/subscriptions/'];
/** Catalog names with no producer on purpose, each with the decision that says why. */
const NEVER_EMITTED: Record<string, string> = {
  'transaction.refund_cancelled': 'docs/api-decisions.md "Transaction state table": refunds have no cancel path',
};
/** Every status a `by_refunds` move can lead to (statusByRefunds). */
const BY_REFUNDS = ['refund_pending', 'authorized', 'refunded', 'partially_refunded'];

function sourceFiles(): string[] {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
      const rel = `${dir}/${entry.name}`;
      if (entry.isDirectory() && entry.name !== 'node_modules') walk(rel);
      else if (entry.isFile() && /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts')) files.push(rel);
    }
  };
  for (const dir of SOURCE_DIRS) walk(dir);
  return files;
}

const parse = (file: string) =>
  ts.createSourceFile(file, fs.readFileSync(path.join(ROOT, file), 'utf8'), ts.ScriptTarget.Latest, true);

function visit(node: ts.Node, fn: (node: ts.Node) => void): void {
  fn(node);
  node.forEachChild((child) => visit(child, fn));
}

const where = (source: ts.SourceFile, node: ts.Node) =>
  `${source.fileName}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;

/** The string literal members of a parameter's declared type (`type: 'a' | 'b'`), or null. */
function literalUnionOf(name: string, from: ts.Node): string[] | null {
  for (let scope: ts.Node | undefined = from; scope; scope = scope.parent) {
    if (!ts.isFunctionLike(scope)) continue;
    const param = scope.parameters.find((p) => ts.isIdentifier(p.name) && p.name.text === name);
    if (!param?.type) continue;
    const members = ts.isUnionTypeNode(param.type) ? param.type.types : [param.type];
    const literals = members.flatMap((m) =>
      ts.isLiteralTypeNode(m) && ts.isStringLiteral(m.literal) ? [m.literal.text] : [],
    );
    return literals.length === members.length ? literals : null;
  }
  return null;
}

interface Scan {
  produced: Map<string, string[]>;
  problems: string[];
}

function scan(): Scan {
  const produced = new Map<string, string[]>();
  const problems: string[] = [];
  const add = (type: string, at: string) => produced.set(type, [...(produced.get(type) ?? []), at]);
  for (const file of sourceFiles()) {
    const source = parse(file);
    const text = source.getFullText();
    if (file !== 'domain/events/events.outbox.ts' && /insert\s+into\s+events\b/i.test(text))
      problems.push(`${file}: writes the events table directly`);
    visit(source, (node) => {
      if (ts.isCallExpression(node)) {
        const callee = node.expression.getText(source);
        if (/\bcreate$/.test(callee) && node.arguments[0]?.getText(source) === 'EventSchema')
          problems.push(`${where(source, node)}: creates an event outside recordEvent`);
        if (callee !== 'recordEvent') return;
        const input = node.arguments[1];
        const typeProp =
          input && ts.isObjectLiteralExpression(input)
            ? input.properties.find((p) => p.name?.getText(source) === 'type')
            : undefined;
        if (!typeProp) return void problems.push(`${where(source, node)}: recordEvent without an inline type`);
        const value = ts.isPropertyAssignment(typeProp)
          ? typeProp.initializer
          : ts.isShorthandPropertyAssignment(typeProp)
            ? typeProp.name
            : null;
        if (value && ts.isStringLiteral(value)) return add(value.text, where(source, node));
        // `cond ? 'a' : 'b'`: both branches are literals, so both types are produced here.
        if (value && ts.isConditionalExpression(value) && [value.whenTrue, value.whenFalse].every(ts.isStringLiteral))
          return [value.whenTrue, value.whenFalse].forEach((branch) =>
            add((branch as ts.StringLiteral).text, where(source, node)),
          );
        const union = value && ts.isIdentifier(value) ? literalUnionOf(value.text, node) : null;
        if (union) return union.forEach((type) => add(type, where(source, node)));
        if (file === TRANSACTION_WRITER || file === SUBSCRIPTION_WRITER) return;
        problems.push(`${where(source, node)}: recordEvent with a type the scan cannot read (use a literal)`);
      }
      if (
        MOVE_EVENT_DIRS.some((dir) => file.startsWith(dir)) &&
        ts.isPropertyAssignment(node) &&
        node.name.getText(source) === 'events' &&
        ts.isArrayLiteralExpression(node.initializer)
      ) {
        for (const element of node.initializer.elements) {
          if (ts.isStringLiteral(element)) add(element.text, where(source, element));
          else if (
            ts.isConditionalExpression(element) &&
            [element.whenTrue, element.whenFalse].every(ts.isStringLiteral)
          )
            [element.whenTrue, element.whenFalse].forEach((branch) =>
              add((branch as ts.StringLiteral).text, where(source, element)),
            );
          else problems.push(`${where(source, element)}: a move's events must be string literals`);
        }
      }
    });
  }
  for (const rule of TRANSACTION_MOVES) {
    const targets = rule.to === 'by_refunds' ? BY_REFUNDS : [rule.to];
    const types = rule.emits === 'status' ? targets.map((to) => `transaction.${to}`) : [...rule.emits];
    for (const type of types) add(type, `${TRANSACTION_WRITER} (state table: ${rule.event})`);
  }
  return { produced, problems };
}

describe('event catalog against the code (static scan of the producers)', () => {
  const { produced, problems } = scan();

  it('every producer names its event type in a way the scan can read', () => {
    expect(problems).to.deep.equal([]);
  });

  it('no producer emits a type outside the catalog', () => {
    const outside = [...produced.keys()].filter((type) => !(EVENT_TYPES as string[]).includes(type));
    expect(outside.map((type) => `${type} at ${produced.get(type)!.join(', ')}`)).to.deep.equal([]);
  });

  it('every catalog type has a producer (or a recorded reason why it never fires)', () => {
    const missing = EVENT_TYPES.filter((type) => !produced.has(type) && !(type in NEVER_EMITTED));
    expect(missing).to.deep.equal([]);
    // An exception that gains a producer must leave the list (and docs/events.md must say when it fires).
    expect(Object.keys(NEVER_EMITTED).filter((type) => produced.has(type))).to.deep.equal([]);
  });

  it('the scan sees the producers it claims to (it finds known ones, so an empty scan cannot pass)', () => {
    expect(produced.get('transaction.created')?.[0]).to.match(
      /^domain\/transactions\/transactions\.attempt-writes\.ts:/,
    );
    expect(produced.get('transaction.dispute_lost')?.[0]).to.match(
      /^domain\/provider-webhooks\/provider-webhooks\.disputes\.ts:/,
    );
    expect(produced.get('subscription.paused')?.[0]).to.match(/^workflows\/lib\/subscription-moves\.ts:/);
    expect(produced.get('transaction.voided')?.[0]).to.include('state table: void_succeeded');
  });
});
