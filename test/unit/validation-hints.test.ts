/** Validation messages hint at the fix: upper-case currency, minor units, the nearest field name for an unknown one. */
import { expect } from 'chai';
import { Type } from '@sinclair/typebox';
import { bodyAjv, Currency, Money, StrictObject, toFieldErrors } from '../../api/http/schema';

const validate = bodyAjv.compile(
  StrictObject({
    amount: Type.Optional(Money()),
    currency: Type.Optional(Currency),
    customer_id: Type.Optional(Type.String()),
  }),
);
const errorsOf = (body: unknown) => {
  validate(body);
  return toFieldErrors(validate.errors);
};

describe('validation messages hint at the fix', () => {
  it('a lower-case currency is told to be upper-case, naming the code it meant', () => {
    expect(errorsOf({ currency: 'brl' })).to.deep.equal({ currency: ['must be upper-case: BRL'] });
  });

  it('a decimal amount is told amounts are integers in minor units', () => {
    expect(errorsOf({ amount: 19.9 }).amount[0]).to.include('minor units');
  });

  it('an unknown field names the nearest known one', () => {
    expect(errorsOf({ customer: 'cust_1' })).to.deep.equal({ customer: ['is not allowed; did you mean customer_id?'] });
  });

  it('an unknown field far from every known one is only refused', () => {
    expect(errorsOf({ zzz: 1 })).to.deep.equal({ zzz: ['is not allowed'] });
  });
});
