import { expect } from 'chai';
import { requestFingerprint } from '../../api/http/idempotency';

const PARAMS = { customerId: 'cust_abc' };
const BODY = { email: 'a@b.co', name: 'Ada', billing_address: { city: 'X', country: 'BR' }, tags: ['a', 'b'] };
const fingerprint = (body: unknown, method = 'post', route = '/customers', params: unknown = PARAMS) =>
  requestFingerprint(method, route, params, body);

describe('api/http/idempotency requestFingerprint', () => {
  it('is a SHA-256 hex digest, stable for the same request', () => {
    expect(fingerprint(BODY))
      .to.match(/^[0-9a-f]{64}$/)
      .and.equal(fingerprint(structuredClone(BODY)));
  });

  it('ignores the order of object keys, at every depth', () => {
    const reordered = { tags: ['a', 'b'], billing_address: { country: 'BR', city: 'X' }, name: 'Ada', email: 'a@b.co' };
    expect(fingerprint(reordered)).to.equal(fingerprint(BODY));
    expect(requestFingerprint('post', '/x', { b: 1, a: 2 }, {})).to.equal(
      requestFingerprint('post', '/x', { a: 2, b: 1 }, {}),
    );
  });

  it('treats a key set to undefined like an absent key', () => {
    expect(fingerprint({ ...BODY, metadata: undefined })).to.equal(fingerprint(BODY));
  });

  it('changes when any value changes, at any depth', () => {
    const base = fingerprint(BODY);
    expect(fingerprint({ ...BODY, name: 'Grace' })).to.not.equal(base);
    expect(fingerprint({ ...BODY, billing_address: { city: 'Y', country: 'BR' } })).to.not.equal(base);
    expect(fingerprint({ ...BODY, tags: ['b', 'a'] }), 'array order matters').to.not.equal(base);
    expect(fingerprint({ ...BODY, extra: null })).to.not.equal(base);
  });

  it('distinguishes values that stringify alike (1 vs "1", null vs absent)', () => {
    expect(fingerprint({ amount: 1 })).to.not.equal(fingerprint({ amount: '1' }));
    expect(fingerprint({ metadata: null })).to.not.equal(fingerprint({}));
  });

  it('changes with the method, the route or the path params', () => {
    const base = fingerprint(BODY);
    expect(fingerprint(BODY, 'patch')).to.not.equal(base);
    expect(fingerprint(BODY, 'post', '/orders')).to.not.equal(base);
    expect(fingerprint(BODY, 'post', '/customers', { customerId: 'cust_other' })).to.not.equal(base);
  });

  it('keeps the digest a stored key was answered under (keys stored before a release still match after it)', () => {
    const body = { ...BODY, metadata: { '10': 'x', b: null, a: [1.5, { z: true, é: 'ü' }] } };
    expect(fingerprint(body)).to.equal('c5464ecae56a67ea6fc5584e4c5e4ce46e16333f6dd00c9cfae672285d8def6d');
  });

  it('does not let a value spill across the params/body boundary', () => {
    expect(requestFingerprint('post', '/x', { a: 1 }, {})).to.not.equal(requestFingerprint('post', '/x', {}, { a: 1 }));
  });
});
