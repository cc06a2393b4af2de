/** Condition-node field rules: operators per field, value types, arrays for in/not_in, math/random in [0,1], safe regexes. */
import { expect } from 'chai';
import { api } from '../helpers/http';
import { createTenant, type Tenant } from '../helpers/factories';
import { expectFieldErrors } from '../helpers/envelope';
import { condition, createConnector, createProfile, nodesPath, sql, type ProfileData } from '../helpers/routing';

describe('Routing condition nodes: field, operator and value rules', () => {
  let tenant: Tenant;
  let profile: ProfileData;
  before(async () => {
    tenant = await createTenant();
    profile = await createProfile(tenant, {
      default_merchant_connector_id: (await createConnector(tenant.merchant_id)).id,
    });
  });
  const post = (field: string, operator: string, value: unknown) =>
    api.post(nodesPath(tenant.merchant_id, profile.id), {
      key: tenant.merchant_secret_key,
      body: { ...condition(field, operator, value), position: 0 },
    });

  const accepted: Array<[string, string, unknown, unknown?]> = [
    ['currency', 'eq', 'BRL'],
    ['currency', 'neq', 'USD'],
    ['currency', 'in', ['BRL', 'USD']],
    ['currency', 'not_in', ['EUR']],
    ['currency', 'regex', '^(BRL|USD)$'],
    ['amount', 'eq', 0],
    ['amount', 'neq', 100],
    ['amount', 'gt', 100],
    ['amount', 'gte', 100],
    ['amount', 'lt', 5000],
    ['amount', 'lte', 5000],
    ['amount', 'in', [100, 200]],
    ['amount', 'not_in', [0]],
    ['installments', 'gte', 2],
    ['installments', 'in', [1, 3, 6]],
    ['installments', 'lt', 12],
    ['card_brand', 'eq', 'visa'],
    ['card_brand', 'eq', 'VISA', 'visa'],
    ['card_brand', 'in', ['Mastercard', 'elo'], ['mastercard', 'elo']],
    ['card_brand', 'not_in', ['amex']],
    ['card_brand', 'regex', '^(visa|master)'],
    ['bin_country', 'eq', 'BR'],
    ['bin_country', 'not_in', ['US', 'CA']],
    ['bin_country', 'regex', '^B'],
    ['is_recurring', 'eq', true],
    ['is_recurring', 'neq', false],
    ['math/random', 'lt', 0.3],
    ['math/random', 'lte', 0],
    ['math/random', 'gt', 1],
    ['math/random', 'gte', 0.5],
  ];
  for (const [field, operator, value, stored] of accepted) {
    it(`accepts ${field} ${operator} ${JSON.stringify(value)}`, async () => {
      const res = await post(field, operator, value);
      expect(res.status, res.text).to.equal(201);
      expect(res.body).to.deep.include({
        condition_field: field,
        condition_operator: operator,
        condition_value: stored ?? value,
      });
    });
  }

  const refused: Array<[string, string, string, unknown, 'condition_operator' | 'condition_value']> = [
    ['currency with gt', 'currency', 'gt', 'BRL', 'condition_operator'],
    ['amount with regex', 'amount', 'regex', '^1', 'condition_operator'],
    ['installments with regex', 'installments', 'regex', '1', 'condition_operator'],
    ['is_recurring with in', 'is_recurring', 'in', [true], 'condition_operator'],
    ['is_recurring with gt', 'is_recurring', 'gt', true, 'condition_operator'],
    ['math/random with eq', 'math/random', 'eq', 0.5, 'condition_operator'],
    ['math/random with in', 'math/random', 'in', [0.5], 'condition_operator'],
    ['card_brand with lt', 'card_brand', 'lt', 'visa', 'condition_operator'],
    ['a two-letter currency', 'currency', 'eq', 'BR', 'condition_value'],
    ['a lowercase currency', 'currency', 'eq', 'brl', 'condition_value'],
    ['an unknown currency', 'currency', 'eq', 'XYZ', 'condition_value'],
    ['a currency list with a bad code', 'currency', 'in', ['BRL', 'US'], 'condition_value'],
    ['a decimal amount', 'amount', 'gt', 10.5, 'condition_value'],
    ['a negative amount', 'amount', 'gte', -1, 'condition_value'],
    ['an amount as a string', 'amount', 'eq', '100', 'condition_value'],
    ['installments of 0', 'installments', 'eq', 0, 'condition_value'],
    ['an unknown card brand', 'card_brand', 'eq', 'visaa', 'condition_value'],
    ['a three-letter bin_country', 'bin_country', 'eq', 'BRA', 'condition_value'],
    ['an unassigned bin_country', 'bin_country', 'in', ['XX'], 'condition_value'],
    ['is_recurring as a string', 'is_recurring', 'eq', 'true', 'condition_value'],
    ['math/random above 1', 'math/random', 'lt', 1.01, 'condition_value'],
    ['math/random below 0', 'math/random', 'gt', -0.1, 'condition_value'],
    ['math/random as a string', 'math/random', 'lt', '0.3', 'condition_value'],
    ['an empty array for in', 'currency', 'in', [], 'condition_value'],
    ['a scalar for not_in', 'amount', 'not_in', 100, 'condition_value'],
    ['an array for eq', 'currency', 'eq', ['BRL'], 'condition_value'],
    ['a repeated value in in', 'currency', 'in', ['BRL', 'BRL'], 'condition_value'],
    ['over 200 values in in', 'amount', 'in', Array.from({ length: 201 }, (_, i) => i), 'condition_value'],
    ['a missing value', 'amount', 'gt', undefined, 'condition_value'],
    ['a null value', 'amount', 'gt', null, 'condition_value'],
    ['an object value', 'amount', 'gt', { min: 1 }, 'condition_value'],
    ['a regex that does not compile', 'card_brand', 'regex', '(visa', 'condition_value'],
    ['a regex over 256 characters', 'card_brand', 'regex', 'v'.repeat(257), 'condition_value'],
    ['a catastrophic regex (a+)+', 'card_brand', 'regex', '^(a+)+$', 'condition_value'],
    ['a catastrophic regex (a|a)*', 'bin_country', 'regex', '(B|B)*', 'condition_value'],
    ['a catastrophic regex (\\w+\\s?)+', 'currency', 'regex', '^(\\w+\\s?)+$', 'condition_value'],
    ['a regex with a backreference', 'card_brand', 'regex', '(v)\\1', 'condition_value'],
    ['a regex with lookahead', 'card_brand', 'regex', '(?=visa)v', 'condition_value'],
    ['a non-string regex', 'card_brand', 'regex', 5, 'condition_value'],
  ];
  for (const [what, field, operator, value, errorField] of refused) {
    it(`rejects ${what} with 400 naming ${errorField}`, async () => {
      const before = (
        await sql('select count(*)::int as n from routing_nodes where routing_profile_id = ?', [profile.id])
      )[0].n;
      expectFieldErrors(await post(field, operator, value), [errorField]);
      expect(
        (await sql('select count(*)::int as n from routing_nodes where routing_profile_id = ?', [profile.id]))[0].n,
      ).to.equal(before);
    });
  }

  it('rejects an unknown operator with 400 from the schema', async () => {
    expectFieldErrors(await post('amount', 'between', [1, 2]), ['condition_operator']);
  });

  it('answers a catastrophic regex quickly (the pattern is never run against input)', async () => {
    const started = Date.now();
    expectFieldErrors(await post('card_brand', 'regex', '^(([a-z])+.)+[A-Z]([a-z])+$'), ['condition_value']);
    expect(Date.now() - started).to.be.below(2000);
  });
});
