/** The event catalog: every name of Document 1, each with its trigger documented in docs/events.md. */
import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import { EVENT_CATALOG, EVENT_TYPES, isEventType } from '../../domain/events/events.outbox';

describe('event catalog', () => {
  it('holds the 33 event names of Document 1 (transaction, refund, dispute, payment method, subscription), the 2 connector health events, the card-testing pause, transaction.in_doubt and transaction.action_required', () => {
    expect(EVENT_TYPES).to.have.length(38);
    expect(isEventType('card_verifications.paused')).to.equal(true);
    expect(isEventType('transaction.action_required')).to.equal(true);
    expect(isEventType('transaction.in_doubt')).to.equal(true);
    expect(EVENT_TYPES.filter((t) => t.startsWith('connector.'))).to.have.length(2);
    expect(EVENT_TYPES.filter((t) => t.startsWith('subscription.'))).to.have.length(11);
    expect(EVENT_TYPES.filter((t) => /^transaction\.(refund|refunded|partially_refunded)/.test(t))).to.have.length(6);
    expect(EVENT_TYPES.filter((t) => t.startsWith('transaction.dispute_'))).to.have.length(5);
    expect(isEventType('payment_method.action_required')).to.equal(true);
    expect(isEventType('transaction.settled')).to.equal(false);
    expect(isEventType('toString')).to.equal(false);
  });

  it('documents every event with its trigger in docs/events.md', () => {
    const doc = fs.readFileSync(path.join(__dirname, '../../docs/events.md'), 'utf8');
    for (const type of EVENT_TYPES) {
      const line = doc.split('\n').find((l) => l.startsWith(`| \`${type}\` |`));
      expect(line, `docs/events.md row for ${type}`).to.be.a('string');
      expect(line).to.include(EVENT_CATALOG[type]);
    }
  });
});
