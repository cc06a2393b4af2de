/**
 * What a condition node may say: the operators each field accepts and the value each operator needs.
 * Pure; the service supplies the card brands the provider catalog knows.
 */
import { isCountry, isCurrency } from '../../lib/iso';
import type { ConditionField, ConditionOperator } from '../../../domain/routing/routing.evaluate';
import { regexProblem } from './regex-safety.rules';

const EQUALITY = ['eq', 'neq', 'in', 'not_in'] as const;
const ORDERING = ['gt', 'gte', 'lt', 'lte'] as const;

/** Operators per field; regex only on the string fields. */
export const OPERATORS_BY_FIELD: Readonly<Record<ConditionField, readonly ConditionOperator[]>> = {
  currency: [...EQUALITY, 'regex'],
  card_brand: [...EQUALITY, 'regex'],
  bin_country: [...EQUALITY, 'regex'],
  amount: [...EQUALITY, ...ORDERING],
  installments: [...EQUALITY, ...ORDERING],
  is_recurring: ['eq', 'neq'],
  'math/random': [...ORDERING],
};

export const MAX_LIST_VALUES = 200;

export interface ConditionInput {
  field: ConditionField;
  operator: ConditionOperator;
  value: unknown;
}

export type ConditionCheck =
  { ok: true; value: unknown } | { ok: false; field: 'condition_operator' | 'condition_value'; message: string };

/** Checks one scalar for a field; returns the stored form (brands lowercase) or a message. */
function scalar(
  field: ConditionField,
  value: unknown,
  cardBrands: ReadonlySet<string>,
): { value: unknown } | { message: string } {
  switch (field) {
    case 'currency':
      return typeof value === 'string' && isCurrency(value)
        ? { value }
        : { message: 'must be an ISO 4217 currency code (uppercase, e.g. BRL)' };
    case 'bin_country':
      return typeof value === 'string' && isCountry(value)
        ? { value }
        : { message: 'must be an ISO 3166-1 alpha-2 country code (uppercase, e.g. BR)' };
    case 'card_brand': {
      const brand = typeof value === 'string' ? value.toLowerCase() : null;
      return brand !== null && cardBrands.has(brand)
        ? { value: brand }
        : { message: `must be a card brand: ${[...cardBrands].sort().join(', ')}` };
    }
    case 'amount':
      return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0
        ? { value }
        : { message: 'must be an integer amount in minor units, 0 or more' };
    case 'installments':
      return typeof value === 'number' && Number.isSafeInteger(value) && value >= 1
        ? { value }
        : { message: 'must be an integer, 1 or more' };
    case 'is_recurring':
      return typeof value === 'boolean' ? { value } : { message: 'must be true or false' };
    case 'math/random':
      return typeof value === 'number' && Number.isFinite(value) && value >= 0 && value <= 1
        ? { value }
        : { message: 'must be a number between 0 and 1' };
  }
}

export function checkCondition(
  { field, operator, value }: ConditionInput,
  cardBrands: ReadonlySet<string>,
): ConditionCheck {
  const allowed = OPERATORS_BY_FIELD[field];
  if (!allowed.includes(operator)) {
    return { ok: false, field: 'condition_operator', message: `must be one of ${allowed.join(', ')} for ${field}` };
  }
  const fail = (message: string): ConditionCheck => ({ ok: false, field: 'condition_value', message });
  if (value === undefined || value === null) return fail(`is required for a ${field} condition`);

  if (operator === 'regex') {
    if (typeof value !== 'string') return fail('must be a regular expression string for regex');
    const problem = regexProblem(value);
    return problem ? fail(problem) : { ok: true, value };
  }
  if (operator === 'in' || operator === 'not_in') {
    if (!Array.isArray(value) || value.length === 0) return fail(`must be a non-empty array for ${operator}`);
    if (value.length > MAX_LIST_VALUES) return fail(`must have at most ${MAX_LIST_VALUES} values`);
    const stored: unknown[] = [];
    for (const item of value) {
      const checked = scalar(field, item, cardBrands);
      if ('message' in checked) return fail(`each value ${checked.message}`);
      if (stored.includes(checked.value)) return fail('must not repeat a value');
      stored.push(checked.value);
    }
    return { ok: true, value: stored };
  }
  if (Array.isArray(value)) return fail(`must be a single value for ${operator} (arrays are for in and not_in)`);
  const checked = scalar(field, value, cardBrands);
  return 'message' in checked ? fail(checked.message) : { ok: true, value: checked.value };
}
