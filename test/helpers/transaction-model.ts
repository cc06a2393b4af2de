/**
 * The reference model of one transaction for the transaction model-based test (test/api/transaction-model.test.ts):
 * what the state table (domain/transactions/transactions.state-table.ts) says a transaction's status, amounts and
 * recorded events become after each operation, written as atomic steps (an operation's begin under the row lock,
 * then its finish once the provider answered), so operations sent at once can be checked against every order in
 * which the database could have serialized them. Pure: no database, no provider.
 */
import type { TransactionStatus } from '../../db/entities';
import { resolveMove, ruleFor, type TransactionEvent } from '../../domain/transactions/transactions.state-table';

export interface ModelRefund {
  amount: number;
  status: 'pending' | 'succeeded' | 'failed';
  /** A success some transaction event has told (refunds.announced_at). */
  announced: boolean;
}

export interface ModelTx {
  status: TransactionStatus;
  authorized: number;
  captured: number;
  refunded: number;
  refunds: ModelRefund[];
  /** The capture or void under way (transactions.pending_operation_id), by the op's index in its step. */
  owner: number | null;
  dispute: 'none' | 'open' | 'won' | 'lost';
  /** The status the transaction had when its dispute opened (a won dispute returns there). */
  beforeDispute: TransactionStatus | null;
  /** Events recorded for this transaction (and its refunds), in the order the model made them. */
  events: string[];
}

/** A provider fault forced on the operation's call (provider_a's control overrides). */
export type OpFault = 'processing_error' | 'approved_server_error';

export type Op =
  | { kind: 'capture'; amount: number | null; fault?: OpFault }
  | { kind: 'void'; fault?: OpFault }
  /** amount null: the balance left. */
  | { kind: 'refund'; amount: number | null; fault?: OpFault }
  /** The provider's dispute-opened notification, arriving while the operations run (one atomic step). */
  | { kind: 'dispute_opened'; fault?: undefined };

/** States no operation or provider notification leaves (a lost dispute's charged_back is checked by `dispute`). */
export const FINAL: readonly TransactionStatus[] = ['failed', 'voided', 'expired', 'canceled'];

export const REFUND_FAILS_CENTS = 61;

export function newTx(status: TransactionStatus, amount: number): ModelTx {
  const paid = status === 'authorized';
  return {
    status,
    authorized: status === 'failed' ? 0 : amount,
    captured: paid ? amount : 0,
    refunded: 0,
    refunds: [],
    owner: null,
    dispute: 'none',
    beforeDispute: null,
    events: ['transaction.created', `transaction.${status}`],
  };
}

const pendingRefunds = (tx: ModelTx) => tx.refunds.filter((r) => r.status === 'pending');

/** applyTransactionMove, on the model: false (nothing recorded) when no rule applies or the move goes nowhere. */
export function move(tx: ModelTx, event: TransactionEvent): boolean {
  const rule = ruleFor(tx.status, event);
  if (!rule) return false;
  const { to, events } = resolveMove(rule, {
    amountCaptured: tx.captured,
    amountRefunded: tx.refunded,
    pendingRefunds: rule.to === 'by_refunds' ? pendingRefunds(tx).length : 0,
  });
  if (rule.to === 'by_refunds' && to === tx.status) return false;
  tx.status = to;
  tx.events.push(...events);
  return true;
}

/** What an operation's begin (under the row lock) decides: null when accepted, else the refusal's code. */
export function begin(tx: ModelTx, op: Op, index: number): string | null {
  if (op.kind === 'dispute_opened') {
    disputeNotice(tx, 'opened');
    return null;
  }
  if (op.kind === 'refund') {
    if (tx.status === 'refunded') return 'TRANSACTION_ALREADY_REFUNDED';
    if (!ruleFor(tx.status, 'refund_requested')) return 'INVALID_STATE_TRANSITION';
    const balance = tx.captured - tx.refunded - pendingRefunds(tx).reduce((sum, r) => sum + r.amount, 0);
    if (balance <= 0) return 'TRANSACTION_ALREADY_REFUNDED';
    const amount = op.amount ?? balance;
    if (amount > balance) return 'REFUND_EXCEEDS_BALANCE';
    tx.refunds.push({ amount, status: 'pending', announced: false });
    tx.events.push('transaction.refund_created');
    move(tx, 'refund_requested');
    return null;
  }
  if (tx.owner !== null || tx.status === 'capture_pending') return 'OPERATION_IN_PROGRESS';
  if (!ruleFor(tx.status, op.kind === 'capture' ? 'capture_requested' : 'void_succeeded'))
    return tx.status === 'voided'
      ? 'TRANSACTION_ALREADY_VOIDED'
      : tx.captured > 0
        ? 'TRANSACTION_ALREADY_CAPTURED'
        : 'INVALID_STATE_TRANSITION';
  if (op.kind === 'capture' && (op.amount ?? tx.authorized) > tx.authorized) return 'CAPTURE_EXCEEDS_AUTHORIZED';
  tx.owner = index;
  if (op.kind === 'capture') move(tx, 'capture_requested');
  return null;
}

/** The refund a begin created, for the finish of the same op (its position among the transaction's refunds). */
export type Begun = { op: Op; index: number; refund: number | null };

/** The provider's answer applied (finishOperation / settleRefund, or the refund's webhook for async providers). */
export function finish(tx: ModelTx, begun: Begun): void {
  const { op } = begun;
  const processed = op.fault !== 'processing_error';
  if (op.kind === 'dispute_opened') return;
  if (op.kind === 'capture' || op.kind === 'void') {
    tx.owner = null;
    if (op.kind === 'capture') {
      if (processed) tx.captured = op.amount ?? tx.authorized;
      move(tx, processed ? 'capture_succeeded' : 'capture_refused');
    } else if (processed) move(tx, 'void_succeeded');
    return;
  }
  const refund = tx.refunds[begun.refund!];
  const succeeded = processed && refund.amount % 100 !== REFUND_FAILS_CENTS;
  refund.status = succeeded ? 'succeeded' : 'failed';
  if (succeeded) tx.refunded += refund.amount;
  else tx.events.push('transaction.refund_failed');
  const unannounced = tx.refunds.some((r) => r.status === 'succeeded' && !r.announced);
  if (move(tx, unannounced ? 'refunds_succeeded' : 'refunds_failed'))
    for (const r of tx.refunds) if (r.status === 'succeeded') r.announced = true;
}

/** A provider's dispute notification. */
export function disputeNotice(tx: ModelTx, stage: 'opened' | 'won' | 'lost'): void {
  if (stage === 'opened') {
    const before = tx.status;
    if (move(tx, 'dispute_opened')) {
      tx.dispute = 'open';
      tx.beforeDispute = before;
    }
    return;
  }
  if (stage === 'won') {
    if (!move(tx, 'dispute_won')) tx.events.push('transaction.dispute_won');
    // announceRefundsSettledDuringDispute: a refund that succeeded while charged_back is told now, once.
    else if (
      (tx.status === 'refunded' || tx.status === 'partially_refunded') &&
      tx.refunds.some((r) => r.status === 'succeeded' && !r.announced)
    ) {
      tx.events.push(`transaction.${tx.status}`);
      for (const r of tx.refunds) if (r.status === 'succeeded') r.announced = true;
    }
  } else tx.events.push('transaction.dispute_lost');
  tx.events.push('transaction.dispute_closed');
  tx.dispute = stage;
}

export interface Outcome {
  /** Each op's refusal code, or null when accepted. */
  answers: Array<string | null>;
  tx: ModelTx;
}

/**
 * Every outcome of running `ops` at once: each op's begin and (if accepted) its finish are atomic, an op's finish
 * comes after its begin, and any interleaving is possible.
 */
export function interleavings(start: ModelTx, ops: readonly Op[]): Outcome[] {
  const outcomes: Outcome[] = [];
  const walk = (tx: ModelTx, answers: Array<string | null | undefined>, inFlight: Begun[]): void => {
    const waiting = ops.map((_, i) => i).filter((i) => answers[i] === undefined);
    if (waiting.length === 0 && inFlight.length === 0) {
      outcomes.push({ answers: answers as Array<string | null>, tx });
      return;
    }
    for (const i of waiting) {
      const next = structuredClone(tx);
      const refundsBefore = next.refunds.length;
      const answer = begin(next, ops[i], i);
      const nextAnswers = [...answers];
      nextAnswers[i] = answer;
      const begun =
        answer === null && ops[i].kind !== 'dispute_opened'
          ? [{ op: ops[i], index: i, refund: ops[i].kind === 'refund' ? refundsBefore : null }]
          : [];
      walk(next, nextAnswers, [...inFlight, ...begun]);
    }
    for (const [k, begun] of inFlight.entries()) {
      const next = structuredClone(tx);
      finish(next, begun);
      walk(
        next,
        answers,
        inFlight.filter((_, j) => j !== k),
      );
    }
  };
  walk(
    structuredClone(start),
    ops.map(() => undefined),
    [],
  );
  return outcomes;
}

/** What the stack can be compared on: status, amounts and the events recorded (as a multiset). */
export function signature(
  tx: { status: string; captured: number; refunded: number },
  events: readonly string[],
): string {
  return JSON.stringify([tx.status, tx.captured, tx.refunded, [...events].sort()]);
}
