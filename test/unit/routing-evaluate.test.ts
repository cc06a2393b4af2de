/** The routing engine (domain/routing/routing.evaluate.ts): conditions, matching, fallback chain, eligibility. */
import { expect } from 'chai';
import {
  conditionHolds,
  evaluate,
  ineligibility,
  type ChargeAttributes,
  type ConditionField,
  type ConditionOperator,
  type ConnectorState,
} from '../../domain/routing/routing.evaluate';
import { act, cond } from '../helpers/routing-program';

const CARD_CONNECTOR: ConnectorState = {
  isActive: true,
  isTestMode: false,
  providerSlug: 'provider_a',
  cardBrands: ['visa', 'mastercard', 'amex'],
  paymentMethods: ['card', 'wallet'],
  currencies: ['USD', 'BRL', 'EUR'],
  supportsThreeDs: true,
};
const connector = (overrides: Partial<ConnectorState> = {}): ConnectorState => ({ ...CARD_CONNECTOR, ...overrides });
const charge = (overrides: Partial<ChargeAttributes> = {}): ChargeAttributes => ({
  paymentMethod: 'credit_card',
  currency: 'BRL',
  amount: 10_000,
  cardBrand: 'visa',
  binCountry: 'BR',
  isRecurring: false,
  installments: 1,
  randomDraw: 0.5,
  ...overrides,
});
const holds = (
  field: ConditionField,
  operator: ConditionOperator,
  value: unknown,
  overrides: Partial<ChargeAttributes> = {},
) => conditionHolds({ field, operator, value }, charge(overrides));

describe('conditionHolds', () => {
  const cases: Array<[string, ConditionField, ConditionOperator, unknown, Partial<ChargeAttributes>, boolean]> = [
    ['currency eq', 'currency', 'eq', 'BRL', {}, true],
    ['currency eq (other)', 'currency', 'eq', 'USD', {}, false],
    ['currency eq with a lowercase charge currency', 'currency', 'eq', 'BRL', { currency: 'brl' }, true],
    ['currency neq', 'currency', 'neq', 'USD', {}, true],
    ['currency neq (same)', 'currency', 'neq', 'BRL', {}, false],
    ['currency in', 'currency', 'in', ['USD', 'BRL'], {}, true],
    ['currency in (absent)', 'currency', 'in', ['USD'], {}, false],
    ['currency not_in', 'currency', 'not_in', ['USD'], {}, true],
    ['currency not_in (present)', 'currency', 'not_in', ['BRL'], {}, false],
    ['currency regex', 'currency', 'regex', '^B', {}, true],
    ['currency regex (no match)', 'currency', 'regex', '^U', {}, false],
    ['amount eq', 'amount', 'eq', 10_000, {}, true],
    ['amount neq', 'amount', 'neq', 10_000, {}, false],
    ['amount gt (equal)', 'amount', 'gt', 10_000, {}, false],
    ['amount gt', 'amount', 'gt', 9_999, {}, true],
    ['amount gte (equal)', 'amount', 'gte', 10_000, {}, true],
    ['amount lt (equal)', 'amount', 'lt', 10_000, {}, false],
    ['amount lt', 'amount', 'lt', 10_001, {}, true],
    ['amount lte (equal)', 'amount', 'lte', 10_000, {}, true],
    ['amount in', 'amount', 'in', [1, 10_000], {}, true],
    ['amount not_in', 'amount', 'not_in', [1, 2], {}, true],
    ['amount eq against a string value', 'amount', 'eq', '10000', {}, false],
    ['installments gte', 'installments', 'gte', 2, { installments: 3 }, true],
    ['installments lt', 'installments', 'lt', 2, { installments: 3 }, false],
    ['card_brand eq', 'card_brand', 'eq', 'visa', {}, true],
    ['card_brand eq with an uppercase charge brand', 'card_brand', 'eq', 'visa', { cardBrand: 'VISA' }, true],
    ['card_brand in', 'card_brand', 'in', ['amex', 'visa'], {}, true],
    ['card_brand regex', 'card_brand', 'regex', '^(visa|master)', {}, true],
    ['card_brand eq without a brand', 'card_brand', 'eq', 'visa', { cardBrand: null }, false],
    ['card_brand neq without a brand', 'card_brand', 'neq', 'visa', { cardBrand: null }, false],
    ['card_brand not_in without a brand', 'card_brand', 'not_in', ['visa'], { cardBrand: undefined }, false],
    ['bin_country eq', 'bin_country', 'eq', 'BR', {}, true],
    ['bin_country neq', 'bin_country', 'neq', 'US', {}, true],
    ['bin_country in without a country', 'bin_country', 'in', ['BR'], { binCountry: null }, false],
    ['is_recurring eq true', 'is_recurring', 'eq', true, { isRecurring: true }, true],
    ['is_recurring eq false', 'is_recurring', 'eq', false, {}, true],
    ['is_recurring neq false', 'is_recurring', 'neq', false, { isRecurring: true }, true],
    ['is_recurring neq true', 'is_recurring', 'neq', true, { isRecurring: true }, false],
    ['math/random lt', 'math/random', 'lt', 0.3, { randomDraw: 0.29 }, true],
    ['math/random lt (equal)', 'math/random', 'lt', 0.3, { randomDraw: 0.3 }, false],
    ['math/random lte (equal)', 'math/random', 'lte', 0.3, { randomDraw: 0.3 }, true],
    ['math/random gt', 'math/random', 'gt', 0.3, { randomDraw: 0.31 }, true],
    ['math/random gte 0 (always)', 'math/random', 'gte', 0, { randomDraw: 0 }, true],
    ['math/random lt 0 (never)', 'math/random', 'lt', 0, { randomDraw: 0 }, false],
    ['math/random lt 1 (always)', 'math/random', 'lt', 1, { randomDraw: 0.999999 }, true],
    ['in with a scalar stored value', 'currency', 'in', 'BRL', {}, false],
    ['regex on a number field', 'amount', 'regex', '1', {}, false],
    ['an uncompilable stored regex', 'currency', 'regex', '(', {}, false],
  ];
  for (const [what, field, operator, value, overrides, expected] of cases) {
    it(`${what} → ${expected}`, () => {
      expect(holds(field, operator, value, overrides)).to.equal(expected);
    });
  }
});

describe('ineligibility', () => {
  it('accepts an active connector that takes the method, currency and brand', () => {
    expect(ineligibility(connector(), charge())).to.equal(null);
  });
  it('names the first reason a connector cannot take a charge', () => {
    expect(ineligibility(undefined, charge())).to.equal('unknown_connector');
    expect(ineligibility(connector({ isActive: false }), charge())).to.equal('inactive');
    expect(ineligibility(connector(), charge({ paymentMethod: 'pix' }))).to.equal('unsupported_payment_method');
    expect(ineligibility(connector(), charge({ currency: 'JPY' }))).to.equal('unsupported_currency');
    expect(ineligibility(connector(), charge({ cardBrand: 'elo' }))).to.equal('unsupported_card_brand');
  });
  it('maps credit_card and debit_card to the provider method card', () => {
    expect(ineligibility(connector(), charge({ paymentMethod: 'debit_card' }))).to.equal(null);
    expect(ineligibility(connector({ paymentMethods: ['pix'] }), charge({ paymentMethod: 'debit_card' }))).to.equal(
      'unsupported_payment_method',
    );
  });
  it('does not filter on brand when the brand is unknown or the method is not a card', () => {
    expect(ineligibility(connector(), charge({ cardBrand: null }))).to.equal(null);
    expect(
      ineligibility(connector({ paymentMethods: ['pix'] }), charge({ paymentMethod: 'pix', cardBrand: 'elo' })),
    ).to.equal(null);
  });
  it('compares brand and currency case-insensitively', () => {
    expect(ineligibility(connector(), charge({ cardBrand: 'Visa', currency: 'usd' }))).to.equal(null);
  });
});

describe('evaluate', () => {
  const states = (...entries: Array<[string, Partial<ConnectorState>?]>) =>
    new Map(entries.map(([id, overrides]) => [id, connector(overrides)]));
  const all = states(['A'], ['B'], ['C'], ['D'], ['DEF']);
  const ids = (plan: ReturnType<typeof evaluate>) =>
    plan.attempts.map((attempt) => `${attempt.connectorId}:${attempt.reason}`);

  it('routes to the default connector when the tree is empty', () => {
    const plan = evaluate({ nodes: [], defaultConnectorId: 'DEF' }, all, charge());
    expect(plan).to.deep.equal({
      attempts: [{ connectorId: 'DEF', nodeId: null, require3ds: 'never', reason: 'default' }],
      mode: 'live',
      matchedNodeId: null,
      skipped: [],
    });
  });

  it('puts the matched action first, carrying its node id and require_3ds, then the default', () => {
    const plan = evaluate(
      { nodes: [act('n1', 'A', { require3ds: 'always' })], defaultConnectorId: 'DEF' },
      all,
      charge(),
    );
    expect(plan.attempts).to.deep.equal([
      { connectorId: 'A', nodeId: 'n1', require3ds: 'always', reason: 'matched', threeDs: true },
      { connectorId: 'DEF', nodeId: null, require3ds: 'never', reason: 'default' },
    ]);
    expect(plan.matchedNodeId).to.equal('n1');
  });

  it('require_3ds always skips a connector whose provider runs no 3-D Secure (three_ds_unsupported); if_supported charges it unauthenticated', () => {
    const connectors = states(['A', { supportsThreeDs: false }], ['B', { supportsThreeDs: false }], ['DEF']);
    const plan = evaluate(
      {
        nodes: [act('n1', 'A', { require3ds: 'always' }), act('n2', 'B', { require3ds: 'if_supported' })],
        defaultConnectorId: 'DEF',
      },
      connectors,
      charge(),
    );
    expect(plan.skipped).to.deep.equal([{ connectorId: 'A', nodeId: 'n1', reason: 'three_ds_unsupported' }]);
    expect(plan.attempts.map((attempt) => [attempt.connectorId, attempt.threeDs ?? false])).to.deep.equal([
      ['B', false],
      ['DEF', false],
    ]);
  });

  it('a merchant-initiated or non-card charge is never authenticated, whatever require_3ds says', () => {
    const program = { nodes: [act('n1', 'A', { require3ds: 'always' })], defaultConnectorId: 'DEF' };
    for (const attributes of [
      { merchantInitiated: true, isRecurring: true },
      { paymentMethod: 'pix' as const, cardBrand: null },
    ]) {
      const plan = evaluate(program, states(['A', { paymentMethods: ['card', 'pix'] }], ['DEF']), charge(attributes));
      expect(plan.attempts[0]).to.include({ connectorId: 'A' }).and.not.have.property('threeDs');
    }
  });

  it('a saved card the merchant charges (is_recurring, not a renewal) is authenticated as the node says', () => {
    const program = { nodes: [act('n1', 'A', { require3ds: 'always' })], defaultConnectorId: 'DEF' };
    const plan = evaluate(program, states(['A', { paymentMethods: ['card'] }], ['DEF']), charge({ isRecurring: true }));
    expect(plan.attempts[0]).to.include({ connectorId: 'A', threeDs: true });
  });

  it('follows the then-branch when the condition holds and the else-branch when not', () => {
    const tree = [cond('c', 'currency', 'eq', 'BRL', [act('t', 'A')], [act('e', 'B')])];
    expect(ids(evaluate({ nodes: tree, defaultConnectorId: 'DEF' }, all, charge()))).to.deep.equal([
      'A:matched',
      'B:fallback',
      'DEF:default',
    ]);
    expect(ids(evaluate({ nodes: tree, defaultConnectorId: 'DEF' }, all, charge({ currency: 'USD' })))).to.deep.equal([
      'B:matched',
      'A:fallback',
      'DEF:default',
    ]);
  });

  it('walks nested conditions to the first action reached', () => {
    const tree = [
      cond(
        'c1',
        'currency',
        'eq',
        'BRL',
        [cond('c2', 'amount', 'gte', 50_000, [act('big', 'A')], [act('small', 'B')])],
        [act('foreign', 'C')],
      ),
    ];
    const plan = evaluate({ nodes: tree, defaultConnectorId: 'DEF' }, all, charge({ amount: 100 }));
    expect(plan.matchedNodeId).to.equal('small');
    expect(ids(plan)).to.deep.equal(['B:matched', 'A:fallback', 'C:fallback', 'DEF:default']);
  });

  it('continues with the next sibling when the chosen branch has no action', () => {
    const tree = [cond('c', 'currency', 'eq', 'BRL', [], [act('e', 'A')]), act('next', 'B')];
    expect(evaluate({ nodes: tree, defaultConnectorId: 'DEF' }, all, charge()).matchedNodeId).to.equal('next');
  });

  it('orders the fallback chain by evaluation order, including actions under branches that did not match', () => {
    const tree = [
      cond('c1', 'is_recurring', 'eq', true, [act('r1', 'A'), act('r2', 'B')], [act('o1', 'C')]),
      act('last', 'D'),
    ];
    const plan = evaluate({ nodes: tree, defaultConnectorId: 'DEF' }, all, charge());
    expect(plan.attempts.map((attempt) => attempt.nodeId)).to.deep.equal(['o1', 'r1', 'r2', 'last', null]);
  });

  it('skips inactive action nodes for both the match and the fallback chain', () => {
    const tree = [act('off', 'A', { isActive: false }), act('on', 'B')];
    expect(ids(evaluate({ nodes: tree, defaultConnectorId: 'DEF' }, all, charge()))).to.deep.equal([
      'B:matched',
      'DEF:default',
    ]);
  });

  it('skips an inactive condition node together with its whole subtree', () => {
    const tree = [cond('off', 'currency', 'eq', 'BRL', [act('t', 'A')], [act('e', 'B')], false), act('on', 'C')];
    expect(ids(evaluate({ nodes: tree, defaultConnectorId: 'DEF' }, all, charge()))).to.deep.equal([
      'C:matched',
      'DEF:default',
    ]);
  });

  it('never lists a connector twice: the first mention wins, the default is not repeated', () => {
    const tree = [act('n1', 'A'), act('n2', 'A'), act('n3', 'DEF'), act('n4', 'B')];
    const plan = evaluate({ nodes: tree, defaultConnectorId: 'DEF' }, all, charge());
    expect(plan.attempts.map((attempt) => [attempt.connectorId, attempt.nodeId])).to.deep.equal([
      ['A', 'n1'],
      ['DEF', 'n3'],
      ['B', 'n4'],
    ]);
  });

  it('skips a matched connector that is inactive, keeping matched_node_id and explaining the skip', () => {
    const connectors = states(['A', { isActive: false }], ['B'], ['DEF']);
    const plan = evaluate({ nodes: [act('n1', 'A'), act('n2', 'B')], defaultConnectorId: 'DEF' }, connectors, charge());
    expect(plan.matchedNodeId).to.equal('n1');
    expect(ids(plan)).to.deep.equal(['B:fallback', 'DEF:default']);
    expect(plan.skipped).to.deep.equal([{ connectorId: 'A', nodeId: 'n1', reason: 'inactive' }]);
  });

  it('skips connectors that cannot take the card brand, payment method or currency, and unknown ones', () => {
    const connectors = states(
      ['A', { cardBrands: ['mastercard'] }],
      ['B', { currencies: ['USD'] }],
      ['C', { paymentMethods: ['pix'] }],
      ['DEF'],
    );
    const plan = evaluate(
      { nodes: [act('a', 'A'), act('b', 'B'), act('c', 'C'), act('x', 'GONE')], defaultConnectorId: 'DEF' },
      connectors,
      charge(),
    );
    expect(ids(plan)).to.deep.equal(['DEF:default']);
    expect(plan.skipped.map((skip) => skip.reason)).to.deep.equal([
      'unsupported_card_brand',
      'unsupported_currency',
      'unsupported_payment_method',
      'unknown_connector',
    ]);
  });

  it('leaves out an ineligible default connector, possibly giving an empty plan', () => {
    const connectors = states(['DEF', { isActive: false }]);
    const plan = evaluate({ nodes: [], defaultConnectorId: 'DEF' }, connectors, charge());
    expect(plan.attempts).to.deep.equal([]);
    expect(plan.skipped).to.deep.equal([{ connectorId: 'DEF', nodeId: null, reason: 'inactive' }]);
  });

  it('routes by the random draw it is given, and gives the same plan for the same input', () => {
    const tree = [cond('split', 'math/random', 'lt', 0.3, [act('a', 'A')], [act('b', 'B')])];
    const program = { nodes: tree, defaultConnectorId: 'DEF' };
    expect(evaluate(program, all, charge({ randomDraw: 0.1 })).matchedNodeId).to.equal('a');
    expect(evaluate(program, all, charge({ randomDraw: 0.3 })).matchedNodeId).to.equal('b');
    expect(evaluate(program, all, charge({ randomDraw: 0.7 }))).to.deep.equal(
      evaluate(program, all, charge({ randomDraw: 0.7 })),
    );
  });

  it('does not mutate its inputs', () => {
    const program = { nodes: [cond('c', 'currency', 'in', ['BRL'], [act('a', 'A')])], defaultConnectorId: 'DEF' };
    const before = JSON.stringify(program);
    const input = charge({ cardBrand: 'VISA' });
    evaluate(program, all, input);
    expect(JSON.stringify(program)).to.equal(before);
    expect(input.cardBrand).to.equal('VISA');
  });
});
