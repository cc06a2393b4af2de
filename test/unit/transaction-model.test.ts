/**
 * The transaction model-based test's reference model (test/helpers/transaction-model.ts) says what the state table
 * says: checked on hand-picked cases (refused refunds, disputes, concurrent operations), so the integration model
 * cannot pass because its oracle is wrong.
 */
import { expect } from 'chai';
import { begin, disputeNotice, finish, interleavings, newTx, type Op } from '../helpers/transaction-model';

const run = (tx: ReturnType<typeof newTx>, op: Op) => {
  const refunds = tx.refunds.length;
  const answer = begin(tx, op, 0);
  if (answer === null) finish(tx, { op, index: 0, refund: op.kind === 'refund' ? refunds : null });
  return answer;
};

describe('transaction reference model', () => {
  it('a refused refund returns the transaction to where it was with only transaction.refund_failed', () => {
    const tx = newTx('authorized', 1500);
    expect(run(tx, { kind: 'refund', amount: 261 })).to.equal(null);
    expect(tx.status).to.equal('authorized');
    expect(tx.events.slice(2)).to.deep.equal([
      'transaction.refund_created',
      'transaction.refund_pending',
      'transaction.refund_failed',
    ]);
  });

  it('a won dispute returns to the status before it, with dispute_won and dispute_closed only', () => {
    const tx = newTx('authorized', 1500);
    run(tx, { kind: 'refund', amount: 500 });
    disputeNotice(tx, 'opened');
    expect(tx.status).to.equal('charged_back');
    disputeNotice(tx, 'won');
    expect(tx.status).to.equal('partially_refunded');
    expect(tx.events.slice(-4)).to.deep.equal([
      'transaction.dispute_created',
      'transaction.charged_back',
      'transaction.dispute_won',
      'transaction.dispute_closed',
    ]);
  });

  it('nothing leaves a voided transaction', () => {
    const tx = newTx('pre_authorized', 1500);
    expect(run(tx, { kind: 'void' })).to.equal(null);
    const events = [...tx.events];
    expect(run(tx, { kind: 'capture', amount: null })).to.equal('TRANSACTION_ALREADY_VOIDED');
    expect(run(tx, { kind: 'refund', amount: null })).to.equal('INVALID_STATE_TRANSITION');
    expect([tx.status, tx.events]).to.deep.equal(['voided', events]);
  });

  it('a capture and a void at once: exactly one is accepted in every order', () => {
    const outcomes = interleavings(newTx('pre_authorized', 1500), [
      { kind: 'capture', amount: 1000 },
      { kind: 'void' },
    ]);
    for (const { answers, tx } of outcomes) {
      expect(answers.filter((a) => a === null)).to.have.length(1);
      expect(['authorized', 'voided']).to.include(tx.status);
    }
    expect(new Set(outcomes.map((o) => o.tx.status))).to.deep.equal(new Set(['authorized', 'voided']));
  });

  it('two refunds at once announce their successes once, together or one by one', () => {
    const outcomes = interleavings(newTx('authorized', 1500), [
      { kind: 'refund', amount: 500 },
      { kind: 'refund', amount: 300 },
    ]);
    const announcements = new Set(
      outcomes.map((o) => o.tx.events.filter((e) => e === 'transaction.partially_refunded').length),
    );
    expect(announcements).to.deep.equal(new Set([1, 2]));
    for (const { tx } of outcomes) expect([tx.status, tx.refunded]).to.deep.equal(['partially_refunded', 800]);
  });

  it('a refund that succeeds while the dispute is open is announced once the dispute is won, after dispute_won', () => {
    const outcomes = interleavings(newTx('authorized', 1500), [
      { kind: 'refund', amount: 500 },
      { kind: 'dispute_opened' },
    ]);
    const disputedMidRefund = outcomes.find(
      (o) => o.tx.status === 'charged_back' && o.tx.refunded === 500 && !o.tx.refunds[0].announced,
    );
    expect(disputedMidRefund, 'the dispute opened while the refund was pending').to.not.equal(undefined);
    const tx = disputedMidRefund!.tx;
    disputeNotice(tx, 'won');
    expect(tx.status).to.equal('partially_refunded');
    expect(tx.events.slice(-3)).to.deep.equal([
      'transaction.dispute_won',
      'transaction.partially_refunded',
      'transaction.dispute_closed',
    ]);
  });
});
