import { expect } from 'chai';
import {
  CHANGE_CHARGE_BEHAVIOR_VALUES,
  effectiveChangeChargeBehavior,
  type ChangeChargeBehaviorValue,
} from '../../workflows/lib/change-charge-behavior';

describe('workflows/lib/change-charge-behavior effectiveChangeChargeBehavior', () => {
  for (const family of CHANGE_CHARGE_BEHAVIOR_VALUES) {
    it(`uses the family behaviour (${family}) when no transition exists for the pair`, () => {
      expect(effectiveChangeChargeBehavior({ transition: null, familyBehavior: family })).to.deep.equal({
        behavior: family,
        source: 'family',
      });
    });

    it(`uses the family behaviour (${family}) when the transition's behaviour is null`, () => {
      const transition = { isActive: true, changeChargeBehavior: null };
      expect(effectiveChangeChargeBehavior({ transition, familyBehavior: family })).to.deep.equal({
        behavior: family,
        source: 'family',
      });
    });

    for (const own of CHANGE_CHARGE_BEHAVIOR_VALUES) {
      it(`ignores an inactive transition (${own}) and uses the family behaviour (${family})`, () => {
        const transition = { isActive: false, changeChargeBehavior: own };
        expect(effectiveChangeChargeBehavior({ transition, familyBehavior: family })).to.deep.equal({
          behavior: family,
          source: 'family',
        });
      });

      it(`applies an active transition's ${own} over the family's ${family}`, () => {
        const transition = { isActive: true, changeChargeBehavior: own };
        expect(effectiveChangeChargeBehavior({ transition, familyBehavior: family })).to.deep.equal({
          behavior: own,
          source: 'transition',
        });
      });
    }
  }

  it('ignores an inactive transition with a null behaviour', () => {
    const transition = { isActive: false, changeChargeBehavior: null };
    expect(effectiveChangeChargeBehavior({ transition, familyBehavior: 'prorated' })).to.deep.equal({
      behavior: 'prorated',
      source: 'family',
    });
  });

  it('covers exactly the three documented behaviours', () => {
    const values: readonly ChangeChargeBehaviorValue[] = CHANGE_CHARGE_BEHAVIOR_VALUES;
    expect(values).to.deep.equal(['next_renew', 'prorated', 'override']);
  });
});
