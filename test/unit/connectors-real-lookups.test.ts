/**
 * The pure parts of the lookups that use what the real providers offer: provider_a's Stripe search query for our
 * metadata key (quoted and escaped so any key finds exactly itself), and provider_d's transactionStatus table.
 */
import { expect } from 'chai';
import type { Outcome } from '../../domain/connectors/connector';
import { LOOKUP_KEY, metadataQuery } from '../../domain/connectors/provider_a/lookup';
import { fromTransactionDetails, TRANSACTION_STATUSES } from '../../domain/connectors/provider_d/lookup';
import { metadataClauses } from '../../sandbox/providers/provider-a-lookups';
import { answer, rowByRow } from '../helpers/rows';
import { lookupReference } from '../../domain/connectors/lookup-reference';
import { fromActionRecord } from '../../domain/connectors/checkout/lookup';

describe("provider_a lookup: the search query metadata['key']:'value'", () => {
  for (const key of ['wf-charge-tx_1:1', "it's:2", 'back\\slash:3', 'spaces and AND words:1']) {
    it(`finds exactly the key ${JSON.stringify(key)} (quotes and backslashes escaped)`, () => {
      expect(metadataClauses(metadataQuery(key))).to.deep.equal([[LOOKUP_KEY, key]]);
    });
  }
});

describe('provider_d lookup: transactionStatus → outcome (getTransactionDetails)', () => {
  const details = (transactionStatus: string, responseReasonCode = '1') =>
    answer(200, {
      transaction: { transId: '6000000001', transactionStatus, responseCode: '1', responseReasonCode },
      messages: { resultCode: 'Ok', message: [] },
    });
  rowByRow<Outcome>(
    TRANSACTION_STATUSES,
    {
      authorizedPendingCapture: 'approved',
      capturedPendingSettlement: 'approved',
      settledSuccessfully: 'approved',
      refundPendingSettlement: 'approved',
      refundSettledSuccessfully: 'approved',
      FDSPendingReview: 'pending',
      FDSAuthorizedPendingReview: 'pending',
      underReview: 'pending',
      approvedReview: 'approved',
      declined: 'soft_decline',
      failedReview: 'hard_decline',
      voided: 'soft_decline',
      expired: 'soft_decline',
      generalError: 'processing_error',
      communicationError: 'processing_error',
    },
    (status, outcome) => `${status} → ${outcome}`,
    (status, outcome) => expect(fromTransactionDetails(details(status, '2')).outcome).to.equal(outcome),
  );

  it('a decline is refined by its reason code (4: pick up card → hard_decline)', () => {
    expect(fromTransactionDetails(details('declined', '4'))).to.include({ outcome: 'hard_decline', rawCode: '4' });
  });

  it('an unknown record (E00040) is a processing error; a 5xx is unknown', () => {
    const missing = answer(200, {
      messages: { resultCode: 'Error', message: [{ code: 'E00040', text: 'The record cannot be found.' }] },
    });
    expect(fromTransactionDetails(missing)).to.include({ outcome: 'processing_error', rawCode: 'E00040' });
    expect(fromTransactionDetails(answer(503, null)).outcome).to.equal('unknown');
  });
});

describe('lookups by merchant reference: which reference a lookup asks for', () => {
  it('the caller’s reference, never one parsed from the idempotency key; none is a lookup that cannot tell', () => {
    expect(lookupReference({ operation: 'authorize', reference: 'tx_b' })).to.equal('tx_b');
    expect(lookupReference({ operation: 'refund', reference: 'ref_9Zq' })).to.equal('ref_9Zq');
    expect(lookupReference({ operation: 'authorize', reference: '' })).to.equal(null);
  });
});

describe('checkout lookup: an entry of GET /payments/:id/actions → the operation outcome', () => {
  it('an approved capture or void is done; a refused refund is final (hard_decline) with its response code', () => {
    const ok = { id: 'act_1', type: 'Capture', approved: true, response_code: '10000' };
    expect(fromActionRecord(ok, 'capture', 'pay_1')).to.include({ outcome: 'approved', providerReference: 'pay_1' });
    const refused = { id: 'act_2', type: 'Refund', approved: false, response_code: '20005' };
    expect(fromActionRecord(refused, 'refund', 'pay_1')).to.include({
      outcome: 'hard_decline',
      providerReference: 'act_2',
      rawCode: '20005',
    });
    const declinedCapture = { id: 'act_3', type: 'Capture', approved: false, response_code: '30004' };
    expect(fromActionRecord(declinedCapture, 'capture', 'pay_1').outcome).to.equal('hard_decline');
  });
});
