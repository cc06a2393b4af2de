import { expect } from 'chai';
import { idFromSeed, newId, randomBase62, type IdPrefix } from '../../domain/platform/ids';

const BASE62 = /^[0-9A-Za-z]*$/;

describe('api/lib/ids', () => {
  it('newId is the prefix, an underscore and 24 base62 characters', () => {
    const prefixes: IdPrefix[] = ['org', 'mrc', 'cust', 'tx', 'ak', 'evt', 'req'];
    for (const prefix of prefixes) expect(newId(prefix)).to.match(new RegExp(`^${prefix}_[0-9A-Za-z]{24}$`));
  });

  it('newId never repeats in 10,000 draws', () => {
    const ids = new Set(Array.from({ length: 10_000 }, () => newId('cust')));
    expect(ids.size).to.equal(10_000);
  });

  it('newId ids are not sequential: consecutive ids share no common 8-character prefix', () => {
    const [a, b, c] = [newId('tx'), newId('tx'), newId('tx')];
    expect(a.slice(0, 11)).to.not.equal(b.slice(0, 11));
    expect(b.slice(0, 11)).to.not.equal(c.slice(0, 11));
  });

  it('randomBase62 returns exactly the requested length, in base62 only', () => {
    for (const length of [0, 1, 6, 24, 100]) {
      const value = randomBase62(length);
      expect(value).to.have.length(length);
      expect(value).to.match(BASE62);
    }
  });

  it('randomBase62 uses all 62 characters, each with roughly equal frequency', () => {
    const counts = new Map<string, number>();
    for (const char of randomBase62(62 * 2000)) counts.set(char, (counts.get(char) ?? 0) + 1);
    expect(counts.size).to.equal(62);
    // Expected 2000 each; a biased modulo (256 % 62) would skew the first 8 characters by ~25 %.
    for (const [char, count] of counts) expect(count, char).to.be.within(1700, 2300);
  });

  it('idFromSeed gives the same well-formed id for the same seed and prefix, and different ids otherwise', () => {
    const id = idFromSeed('tx', 'seed-a');
    expect(id).to.match(/^tx_[0-9A-Za-z]{24}$/);
    expect(idFromSeed('tx', 'seed-a')).to.equal(id);
    expect(idFromSeed('tx', 'seed-b')).to.not.equal(id);
    expect(idFromSeed('ord', 'seed-a').slice(4)).to.not.equal(id.slice(3));
    const many = new Set(Array.from({ length: 5_000 }, (_, i) => idFromSeed('tx', `seed-${i}`)));
    expect(many.size).to.equal(5_000);
  });
});
