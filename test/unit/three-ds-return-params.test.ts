/**
 * What the 3-D Secure return endpoint hands the charge's wait of the parameters the provider sent the buyer back
 * with (Adyen's redirectResult, by query or form POST): a bounded record of short string fields, never anything that
 * looks like a card number, since it is kept in the wait's workflow history.
 */
import { expect } from 'chai';
import { RETURN_PARAM_LIMITS, returnParamsOf } from '../../api/modules/transactions/three-ds-return.middleware';

describe('3-D Secure return parameters (return endpoint → the wait)', () => {
  it('keeps the provider parameters of the query and of a form POST body, the body winning', () => {
    expect(
      returnParamsOf({ redirectResult: 'X3XtfGC9!H4sIAAAAAAAA', shop: 'a' }, new URLSearchParams('shop=b&MD=c2')),
    ).to.deep.equal({ redirectResult: 'X3XtfGC9!H4sIAAAAAAAA', shop: 'b', MD: 'c2' });
  });

  it('drops repeated (array) values, keys that are not plain names, and values that hold a card number', () => {
    expect(
      returnParamsOf({ twice: ['a', 'b'], 'bad key': 'x', '<script>': 'x', pan: '4242 4242 4242 4242', ok: 'v' }, null),
    ).to.deep.equal({ ok: 'v' });
  });

  it(`keeps at most ${RETURN_PARAM_LIMITS.entries} fields, each value at most ${RETURN_PARAM_LIMITS.valueChars} characters`, () => {
    const many = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`k${i}`, 'v']));
    expect(Object.keys(returnParamsOf(many, null))).to.have.length(RETURN_PARAM_LIMITS.entries);
    const long = 'x'.repeat(RETURN_PARAM_LIMITS.valueChars + 1);
    expect(returnParamsOf({ redirectResult: long, ok: 'v' }, null)).to.deep.equal({ ok: 'v' });
  });

  it('is empty without parameters', () => {
    expect(returnParamsOf({}, null)).to.deep.equal({});
  });
});
