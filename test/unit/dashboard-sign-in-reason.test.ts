/** The sign-in page shows fixed texts for known `?reason=` codes only: never attacker-chosen text. */
import { expect } from 'chai';
import { signInReason } from '../../web/dashboard/src/sign-in-reason';

describe('Dashboard sign-in ?reason=', () => {
  it('maps known codes to fixed texts and shows nothing for any other text', () => {
    expect(signInReason('session-ended')).to.match(/session has ended/);
    expect(signInReason('Your account is locked. Call +1-555-0100')).to.equal(undefined);
    expect(signInReason('toString')).to.equal(undefined);
    expect(signInReason(null)).to.equal(undefined);
  });
});
