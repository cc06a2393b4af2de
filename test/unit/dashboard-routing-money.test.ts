/** The routing tree shows an amount condition as money: in the currency a condition above pins, else what it means. */
import { expect } from 'chai';
import { conditionValueText, type ConditionNode } from '../../web/dashboard/src/pages/routing/amounts';

const node = (id: string, fields: Partial<ConditionNode>): ConditionNode => ({
  id,
  parent_node_id: null,
  branch: null,
  condition_field: null,
  condition_operator: null,
  condition_value: null,
  ...fields,
});

describe('Dashboard routing: amount conditions in money', () => {
  it('formats the minor units in the currency pinned by a "currency is" condition above (then-branch)', () => {
    const currency = node('n1', { condition_field: 'currency', condition_operator: 'eq', condition_value: 'USD' });
    const amount = node('n2', {
      parent_node_id: 'n1',
      branch: 'then',
      condition_field: 'amount',
      condition_operator: 'gte',
      condition_value: 10000,
    });
    const byId = new Map([currency, amount].map((n) => [n.id, n]));
    expect(conditionValueText(amount, byId)).to.equal('$100.00');
  });

  it('without a pinned currency, says the value is minor units and what it means in BRL', () => {
    const amount = node('n1', { condition_field: 'amount', condition_operator: 'gt', condition_value: 10000 });
    expect(conditionValueText(amount, new Map([['n1', amount]]))).to.match(
      /^10000 minor units \(R\$\s?100\.00 in BRL\)$/,
    );
  });

  it('an otherwise-branch of "currency is USD" pins nothing; other fields stay JSON', () => {
    const currency = node('n1', { condition_field: 'currency', condition_operator: 'eq', condition_value: 'USD' });
    const amount = node('n2', {
      parent_node_id: 'n1',
      branch: 'else',
      condition_field: 'amount',
      condition_operator: 'lt',
      condition_value: 500,
    });
    const byId = new Map([currency, amount].map((n) => [n.id, n]));
    expect(conditionValueText(amount, byId)).to.match(/minor units/);
    expect(conditionValueText(currency, byId)).to.equal('"USD"');
  });
});
