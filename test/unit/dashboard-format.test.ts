/** The Dashboard web app shows money in the currency's own minor units and format (Intl.NumberFormat). */
import { expect } from 'chai';
import { money, toMinor } from '../../web/dashboard/src/format';

describe('Dashboard web app: money formatting', () => {
  it("divides minor units by the currency's own exponent (USD 2, JPY 0, BHD 3)", () => {
    expect(money(1234, 'USD')).to.match(/12\.34/);
    expect(money(1234, 'JPY')).to.match(/1,234/).and.not.match(/\./);
    expect(money(1234, 'BHD')).to.match(/1\.234/);
    expect(money(null, 'USD')).to.equal('—');
  });

  it('turns a typed amount back into minor units for the currency', () => {
    expect(toMinor('12.34', 'USD')).to.equal(1234);
    expect(toMinor('12,5', 'USD')).to.equal(1250);
    expect(toMinor('500', 'JPY')).to.equal(500);
    expect(toMinor('abc', 'USD')).to.be.NaN;
  });
});
