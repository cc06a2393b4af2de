/**
 * What a provider's event does to our objects (domain/provider-webhooks/provider-webhooks.mapping.ts), checked without
 * a server: which object it acts on, what a payment verdict may do from each transaction status, and how a refused
 * delivery's reason reads on the Dashboard.
 */
import { expect } from 'chai';
import type { TransactionStatus } from '../../db/entities';
import {
  effectOf,
  paymentVerdictEffect,
  refusalReason,
} from '../../domain/provider-webhooks/provider-webhooks.mapping';
import { canApply, UNPAID_ENDS } from '../../domain/transactions/transactions.state-table';

describe('provider webhooks: mapping the provider event onto our effect', () => {
  it('maps a refund result onto the refund it names', () => {
    expect(effectOf({ type: 'refund.succeeded' })).to.deep.equal({ kind: 'refund', result: 'succeeded' });
    expect(effectOf({ type: 'refund.failed' })).to.deep.equal({ kind: 'refund', result: 'failed' });
  });

  it('maps a capture or void decision onto the operation waiting on it', () => {
    expect(effectOf({ type: 'capture.succeeded' })).to.deep.equal({
      kind: 'operation',
      operation: 'capture',
      result: 'succeeded',
    });
    expect(effectOf({ type: 'void.failed' })).to.deep.equal({ kind: 'operation', operation: 'void', result: 'failed' });
  });

  it('maps every payment verdict onto the payment, and each dispute event onto its own step', () => {
    for (const type of ['payment.succeeded', 'payment.failed', 'payment.expired'] as const)
      expect(effectOf({ type })).to.deep.equal({ kind: 'payment' });
    expect(effectOf({ type: 'dispute.opened' })).to.deep.equal({ kind: 'dispute_opened' });
    expect(effectOf({ type: 'dispute.updated' })).to.deep.equal({ kind: 'dispute_updated' });
  });

  it('closes a dispute with the outcome the provider states, or with none when it states none', () => {
    expect(effectOf({ type: 'dispute.closed', disputeOutcome: 'won' })).to.deep.equal({
      kind: 'dispute_closed',
      outcome: 'won',
    });
    expect(effectOf({ type: 'dispute.closed', disputeOutcome: 'lost' })).to.include({ outcome: 'lost' });
    expect(effectOf({ type: 'dispute.closed' })).to.include({ outcome: null });
  });

  describe('a payment verdict', () => {
    const tx = (status: TransactionStatus) => ({ status, amount: 1000 });

    it('is signalled to the settlement while the charge awaits one', () => {
      expect(canApply('pending', 'charge_approved')).to.equal(true);
      expect(paymentVerdictEffect(tx('pending'), { type: 'payment.succeeded', amount: 1000 })).to.equal('signal');
      expect(paymentVerdictEffect(tx('pending'), { type: 'payment.succeeded', amount: null })).to.equal('signal');
      expect(paymentVerdictEffect(tx('pending'), { type: 'payment.failed', amount: 5 })).to.equal('signal');
      expect(paymentVerdictEffect(tx('pending'), { type: 'payment.expired', amount: null })).to.equal('signal');
    });

    it('is recorded, not applied, when a success states another amount than the charge', () => {
      expect(paymentVerdictEffect(tx('pending'), { type: 'payment.succeeded', amount: 999 })).to.equal(
        'amount_mismatch',
      );
      expect(paymentVerdictEffect(tx('pending'), { type: 'payment.succeeded', amount: 1001 })).to.equal(
        'amount_mismatch',
      );
    });

    it('hands money taken after the charge ended unpaid to the reconciler to give back', () => {
      for (const status of UNPAID_ENDS)
        expect(paymentVerdictEffect(tx(status), { type: 'payment.succeeded', amount: 1000 })).to.equal('give_back');
    });

    it('changes nothing on a charge that no longer awaits a verdict otherwise', () => {
      for (const status of UNPAID_ENDS)
        expect(paymentVerdictEffect(tx(status), { type: 'payment.failed', amount: null })).to.equal('ignore');
      for (const status of ['authorized', 'charged_back', 'refunded'] as const) {
        expect(canApply(status, 'charge_approved')).to.equal(false);
        expect(paymentVerdictEffect(tx(status), { type: 'payment.succeeded', amount: 1000 })).to.equal('ignore');
      }
    });
  });

  it('reads a refused delivery as a bad signature or a malformed body', () => {
    expect(refusalReason('Invalid HMAC signature')).to.equal('bad_signature');
    expect(refusalReason('Timestamp outside the tolerance')).to.equal('bad_signature');
    expect(refusalReason('Missing webhook secret')).to.equal('bad_signature');
    expect(refusalReason('Body is not JSON')).to.equal('malformed_body');
  });
});
