/**
 * One failure_code vocabulary whatever the provider: each adapter's table maps the codes its provider reports for
 * the sandbox's scenarios (docs/sandbox.md, "How each provider reports the scenarios") onto the same code; a code
 * no table knows reads by its outcome; Switchyard's own reasons pass as they are.
 */
import { expect } from 'chai';
import { attemptFailureCode } from '../../domain/connectors/failure-codes';
import { DECLINE_CODES, SWITCHYARD_CODES } from '../../workflows/lib/failure-codes';
import { FAILURE_CODES as CHECKOUT } from '../../domain/connectors/checkout/transformers';
import { FAILURE_CODES as PROVIDER_A } from '../../domain/connectors/provider_a/transformers';
import { FAILURE_CODES as PROVIDER_B } from '../../domain/connectors/provider_b/transformers';
import { FAILURE_CODES as PROVIDER_C } from '../../domain/connectors/provider_c/transformers';
import { FAILURE_CODES as PROVIDER_D } from '../../domain/connectors/provider_d/transformers';

// scenario → [failure_code, provider_a, provider_b, provider_c, provider_d, checkout] as each reports it.
const SCENARIOS: Array<[string, string, string, string, string, string]> = [
  ['do_not_honor', 'do_not_honor', '2', 'cc_rejected_other_reason', '2', '20005'],
  ['insufficient_funds', 'insufficient_funds', '12', 'cc_rejected_insufficient_amount', '3', '20051'],
  ['lost_or_stolen', 'stolen_card', '5', 'cc_rejected_blacklist', '4', '30043'],
  ['lost_or_stolen', 'lost_card', '5', 'cc_rejected_blacklist', '4', '30041'],
  ['expired_card', 'expired_card', '6', 'cc_rejected_bad_filled_date', '8', '20054'],
  ['invalid_number', 'incorrect_number', '8', 'cc_rejected_bad_filled_card_number', '6', '20014'],
  ['fraudulent', 'fraudulent', '20', 'cc_rejected_high_risk', '250', '20059'],
];
const SLUGS = ['provider_a', 'provider_b', 'provider_c', 'provider_d', 'checkout'];

describe('failure codes: one vocabulary across providers', () => {
  for (const [expected, ...codes] of SCENARIOS) {
    it(`every provider's code for ${expected} (${codes.join(', ')}) is failure_code ${expected}`, () => {
      for (const [index, slug] of SLUGS.entries())
        expect(attemptFailureCode(slug, codes[index], 'soft_decline'), slug).to.equal(expected);
    });
  }

  it('each provider asks for 3-D Secure as authentication_required', () => {
    expect(attemptFailureCode('provider_a', 'authentication_required', 'soft_decline')).to.equal(
      'authentication_required',
    );
    expect(attemptFailureCode('provider_b', '38', 'soft_decline')).to.equal('authentication_required');
    expect(attemptFailureCode('checkout', '20150', 'soft_decline')).to.equal('authentication_required');
  });

  it('a code no table knows reads by its outcome: a decline is generic_decline, an error processing_error', () => {
    expect(attemptFailureCode('provider_b', '99', 'hard_decline')).to.equal('generic_decline');
    expect(attemptFailureCode('provider_c', 'cc_rejected_new_reason', 'soft_decline')).to.equal('generic_decline');
    expect(attemptFailureCode('provider_a', 'http_500', 'processing_error')).to.equal('processing_error');
    expect(attemptFailureCode('provider_d', 'http_503', 'network_error')).to.equal('processing_error');
  });

  it("Switchyard's own reasons pass as they are, and a success has none", () => {
    for (const code of Object.keys(SWITCHYARD_CODES))
      expect(attemptFailureCode('provider_d', code, 'unknown')).to.equal(code);
    expect(attemptFailureCode('provider_a', null, 'approved')).to.equal(null);
  });

  it('every table maps onto the documented vocabulary only', () => {
    for (const table of [PROVIDER_A, PROVIDER_B, PROVIDER_C, PROVIDER_D, CHECKOUT])
      for (const [code, ours] of Object.entries(table)) expect(DECLINE_CODES, code).to.have.property(ours);
  });
});
