import { expect } from 'chai';
import { slugify, uniqueSlug } from '../../domain/platform/slug';

const SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

describe('api/lib/slug', () => {
  it('slugify lowercases and joins words with single dashes', () => {
    expect(slugify('Acme Payments Inc')).to.equal('acme-payments-inc');
    expect(slugify('  Hello,   World!  ')).to.equal('hello-world');
    expect(slugify('Shop #42 / Store_B')).to.equal('shop-42-store-b');
  });

  it('slugify strips accents to plain ASCII', () => {
    expect(slugify('Café Déjà Vu')).to.equal('cafe-deja-vu');
    expect(slugify('São Paulo Ltda.')).to.equal('sao-paulo-ltda');
  });

  it('slugify falls back to "merchant" when nothing usable is left', () => {
    for (const name of ['', '---', '!!!', '日本', '   ']) expect(slugify(name), name).to.equal('merchant');
  });

  it('slugify keeps at most 48 characters', () => {
    expect(slugify('a'.repeat(100))).to.equal('a'.repeat(48));
  });

  it('slugify never begins or ends with a dash, even when truncated at 48 characters', () => {
    for (const name of ['-Leading and trailing-', `${'a'.repeat(47)} bcd`, `${'ab '.repeat(30)}`]) {
      const slug = slugify(name);
      expect(slug, name).to.match(SLUG);
      expect(slug.length).to.be.at.most(48);
    }
  });

  it('uniqueSlug appends a dash and six lowercase base62 characters, different each time', () => {
    const slugs = Array.from({ length: 200 }, () => uniqueSlug('Acme Inc'));
    for (const slug of slugs) expect(slug).to.match(/^acme-inc-[0-9a-z]{6}$/);
    expect(new Set(slugs).size).to.equal(slugs.length);
  });

  it('uniqueSlug is a well-formed slug even for long names', () => {
    expect(uniqueSlug(`${'a'.repeat(47)} bcd`)).to.match(SLUG);
  });
});
