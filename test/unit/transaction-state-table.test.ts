/** The transaction state table: one rule per (state, event), the moves the spec and docs promise, nothing listed elsewhere. */
import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import { TRANSACTION_STATUSES } from '../../db/entities/transaction';
import {
  TRANSACTION_MOVES,
  resolveMove,
  ruleFor,
  statusByRefunds,
} from '../../domain/transactions/transactions.state-table';

const root = path.join(__dirname, '../..');
const noRefunds = { amountCaptured: 1500, amountRefunded: 0, pendingRefunds: 0 };

describe('transaction state table', () => {
  it('has at most one rule for each state and event (a move is never ambiguous)', () => {
    for (const status of TRANSACTION_STATUSES) {
      for (const rule of TRANSACTION_MOVES) {
        const matching = TRANSACTION_MOVES.filter((r) => r.event === rule.event && r.from.includes(status));
        expect(matching.length, `${status} + ${rule.event}`).to.be.at.most(1);
      }
    }
  });

  it('a refused refund returns the transaction to where it was and records no transaction.<status> event', () => {
    const rule = ruleFor('refund_pending', 'refunds_failed')!;
    expect(resolveMove(rule, noRefunds)).to.deep.equal({ to: 'authorized', events: [] });
    expect(resolveMove(rule, { ...noRefunds, amountRefunded: 500 })).to.deep.equal({
      to: 'partially_refunded',
      events: [],
    });
  });

  it('a settled refund leads to refunded or partially_refunded by the amounts, with that status event', () => {
    const rule = ruleFor('refund_pending', 'refunds_succeeded')!;
    expect(resolveMove(rule, { ...noRefunds, amountRefunded: 1500 })).to.deep.equal({
      to: 'refunded',
      events: ['transaction.refunded'],
    });
    expect(resolveMove(rule, { ...noRefunds, amountRefunded: 1 }).to).to.equal('partially_refunded');
  });

  it('a won dispute returns to the state before the dispute and records only transaction.dispute_won', () => {
    const rule = ruleFor('charged_back', 'dispute_won')!;
    expect(resolveMove(rule, noRefunds)).to.deep.equal({ to: 'authorized', events: ['transaction.dispute_won'] });
    expect(resolveMove(rule, { ...noRefunds, amountRefunded: 1500 }).to).to.equal('refunded');
    expect(resolveMove(rule, { ...noRefunds, amountRefunded: 200 }).to).to.equal('partially_refunded');
    expect(resolveMove(rule, { ...noRefunds, pendingRefunds: 1 }).to).to.equal('refund_pending');
  });

  it('no decided charge moves again by a charge verdict (nothing re-finalizes a final transaction)', () => {
    const verdicts = ['charge_approved', 'charge_approved_uncaptured', 'charge_failed', 'charge_expired'] as const;
    for (const status of TRANSACTION_STATUSES.filter((s) => s !== 'pending'))
      for (const event of verdicts) expect(ruleFor(status, event), `${status} + ${event}`).to.equal(null);
  });

  it('statusByRefunds: pending refunds first, then nothing / all / part refunded', () => {
    expect(statusByRefunds({ amountCaptured: 10, amountRefunded: 10, pendingRefunds: 1 })).to.equal('refund_pending');
    expect(statusByRefunds({ amountCaptured: 10, amountRefunded: 0, pendingRefunds: 0 })).to.equal('authorized');
    expect(statusByRefunds({ amountCaptured: 10, amountRefunded: 10, pendingRefunds: 0 })).to.equal('refunded');
    expect(statusByRefunds({ amountCaptured: 10, amountRefunded: 3, pendingRefunds: 0 })).to.equal(
      'partially_refunded',
    );
  });

  it('no other transaction code lists allowed from-states (moves go through the table)', () => {
    const dirs = ['activities/transactions', 'api/modules/transactions', 'domain/transactions', 'db/repositories'];
    for (const dir of dirs) {
      for (const file of fs.readdirSync(path.join(root, dir))) {
        if (!file.endsWith('.ts') || file === 'transactions.state-table.ts') continue;
        const text = fs.readFileSync(path.join(root, dir, file), 'utf8');
        expect(text, `${dir}/${file}`).to.not.match(/\bfrom:\s*\[\s*'/);
        expect(text, `${dir}/${file}`).to.not.match(
          /\[('(authorized|pre_authorized|partially_refunded|refunded|refund_pending|charged_back)',\s*){2,}/,
        );
      }
    }
  });

  it('is written out in docs/api-decisions.md, one row per rule', () => {
    const doc = fs.readFileSync(path.join(root, 'docs/api-decisions.md'), 'utf8');
    for (const rule of TRANSACTION_MOVES) {
      const line = doc
        .split('\n')
        .find((l) => l.includes(`| \`${rule.event}\` |`) && rule.from.every((f) => l.includes(f)));
      expect(line, `docs row for ${rule.from.join(',')} + ${rule.event}`).to.be.a('string');
    }
  });
});
