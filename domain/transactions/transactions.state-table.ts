/**
 * The transaction's lifecycle as one table (like the subscription's ALLOWED_FROM): every move a transaction can
 * make, by the event that causes it, the states it applies from, the state it leads to and the webhook events it
 * records. Pure data and pure functions: applyTransactionMove (transactions.transitions.ts) is the only code that
 * changes a transaction's status, and only through a row here. docs/api-decisions.md writes the table out.
 */
import type { TransactionStatus } from '../../db/entities';
import type { EventType } from '../events/events.outbox';

export type TransactionEvent =
  /** The charge cascade's verdict, or the settlement of a pending charge (provider webhook or lookup). */
  | 'charge_approved'
  | 'charge_approved_uncaptured'
  | 'charge_awaiting_payment'
  | 'charge_failed'
  | 'charge_expired'
  | 'charge_canceled'
  /** Capture and void of an authorization. */
  | 'capture_requested'
  | 'capture_succeeded'
  | 'capture_refused'
  | 'void_succeeded'
  /**
   * Refunds: the first pending refund, then the settlement of the last pending one — refunds_succeeded when a
   * refund succeeded since the transaction went refund_pending (not yet announced), refunds_failed when none did.
   */
  | 'refund_requested'
  | 'refunds_succeeded'
  | 'refunds_failed'
  /** Disputes, from provider notifications. */
  | 'dispute_opened'
  | 'dispute_won';

/**
 * Where a move leads: a fixed state, or 'by_refunds' — the state the money says (a pending refund: refund_pending;
 * nothing refunded: authorized; all of it: refunded; part: partially_refunded). A failed refund and a won dispute
 * therefore return the transaction to where it was before them, without storing that state separately.
 */
export type MoveTarget = TransactionStatus | 'by_refunds';

export interface TransactionMoveRule {
  from: readonly TransactionStatus[];
  event: TransactionEvent;
  to: MoveTarget;
  /** 'status' records transaction.<to>; a list records exactly those events; [] records none. */
  emits: 'status' | readonly EventType[];
}

export const TRANSACTION_MOVES: readonly TransactionMoveRule[] = [
  { from: ['pending'], event: 'charge_approved', to: 'authorized', emits: 'status' },
  { from: ['pending'], event: 'charge_approved_uncaptured', to: 'pre_authorized', emits: 'status' },
  // pix/boleto/held for review: stays pending, now with the provider's reference and payment instructions.
  { from: ['pending'], event: 'charge_awaiting_payment', to: 'pending', emits: 'status' },
  { from: ['pending'], event: 'charge_failed', to: 'failed', emits: 'status' },
  { from: ['pending'], event: 'charge_expired', to: 'expired', emits: 'status' },
  { from: ['pending'], event: 'charge_canceled', to: 'canceled', emits: 'status' },
  { from: ['pre_authorized'], event: 'capture_requested', to: 'capture_pending', emits: 'status' },
  { from: ['capture_pending'], event: 'capture_succeeded', to: 'authorized', emits: 'status' },
  // The authorization still holds the funds: transaction.pre_authorized tells webhook subscribers the capture did not happen.
  { from: ['capture_pending'], event: 'capture_refused', to: 'pre_authorized', emits: 'status' },
  { from: ['pre_authorized'], event: 'void_succeeded', to: 'voided', emits: 'status' },
  { from: ['authorized', 'partially_refunded'], event: 'refund_requested', to: 'refund_pending', emits: 'status' },
  // A further refund while one is pending: no move; its transaction.refund_created (the refund) is the news.
  { from: ['refund_pending'], event: 'refund_requested', to: 'refund_pending', emits: [] },
  // Announces every success of the wait at once (also when the last refund to settle failed: see settleRefund).
  { from: ['refund_pending'], event: 'refunds_succeeded', to: 'by_refunds', emits: 'status' },
  // Nothing refunded meanwhile: back to where it was; the refunds' own transaction.refund_failed are the only events.
  { from: ['refund_pending'], event: 'refunds_failed', to: 'by_refunds', emits: [] },
  {
    from: ['authorized', 'partially_refunded', 'refunded', 'refund_pending'],
    event: 'dispute_opened',
    to: 'charged_back',
    emits: ['transaction.dispute_created', 'transaction.charged_back'],
  },
  // Back to the state before the dispute; dispute_won says what happened (no second transaction.authorized). A refund
  // that succeeded during the dispute is announced after it (announceRefundsSettledDuringDispute).
  { from: ['charged_back'], event: 'dispute_won', to: 'by_refunds', emits: ['transaction.dispute_won'] },
];

/** The rule for `event` from `status`, or null when the move does not apply (already made, or not allowed). */
export function ruleFor(status: TransactionStatus, event: TransactionEvent): TransactionMoveRule | null {
  return TRANSACTION_MOVES.find((rule) => rule.event === event && rule.from.includes(status)) ?? null;
}

export const canApply = (status: TransactionStatus, event: TransactionEvent): boolean =>
  ruleFor(status, event) !== null;

/** The statuses `event` applies from (the Dashboard enables its capture, void and refund buttons by these). */
export const statusesAllowing = (event: TransactionEvent): TransactionStatus[] => [
  ...new Set(TRANSACTION_MOVES.filter((rule) => rule.event === event).flatMap((rule) => rule.from)),
];

/** The API's operations on a transaction (POST /transactions/:id/capture, /void, /refunds). */
export type TransactionOperation = 'capture' | 'void' | 'refund';

/** A 422 an operation answers from these statuses (`captured`: only once money was captured, amount_captured > 0). */
export interface OperationRefusal {
  from: readonly TransactionStatus[];
  captured?: true;
  code: string;
  message: string;
}

export interface OperationMove {
  /** The move the operation starts: it is allowed from the statuses that move applies from (TRANSACTION_MOVES). */
  event: TransactionEvent;
  /** Refused from any other status with the first refusal that matches, else INVALID_STATE_TRANSITION. */
  refusals: readonly OperationRefusal[];
  /** The operation as a past participle, for INVALID_STATE_TRANSITION's message. */
  done: string;
}

/** After a capture: the statuses a transaction can have once money was captured. */
const CAPTURED_STATUSES: readonly TransactionStatus[] = [
  'authorized',
  'refund_pending',
  'partially_refunded',
  'refunded',
  'charged_back',
];
const ALREADY_VOIDED: OperationRefusal = {
  from: ['voided'],
  code: 'TRANSACTION_ALREADY_VOIDED',
  message: 'The transaction was voided',
};
const ALREADY_CAPTURED: OperationRefusal = {
  from: CAPTURED_STATUSES,
  captured: true,
  code: 'TRANSACTION_ALREADY_CAPTURED',
  message: 'The transaction was already captured',
};

/**
 * Which capture, void or refund the state allows, and the 422 it answers otherwise: beginOperation
 * (transactions.operation-writes.ts) asks operationRefusal under the row lock. docs/api-decisions.md writes it out.
 */
export const OPERATION_MOVES: Readonly<Record<TransactionOperation, OperationMove>> = {
  capture: { event: 'capture_requested', refusals: [ALREADY_VOIDED, ALREADY_CAPTURED], done: 'captured' },
  void: { event: 'void_succeeded', refusals: [ALREADY_VOIDED, ALREADY_CAPTURED], done: 'voided' },
  refund: {
    event: 'refund_requested',
    refusals: [
      {
        from: ['refunded'],
        code: 'TRANSACTION_ALREADY_REFUNDED',
        message: 'The transaction was already fully refunded',
      },
    ],
    done: 'refunded',
  },
};

/** The 422 `operation` answers for a transaction in this state; null when the state allows it. */
export function operationRefusal(
  operation: TransactionOperation,
  tx: { status: TransactionStatus; amountCaptured: number },
): { code: string; message: string } | null {
  const move = OPERATION_MOVES[operation];
  if (canApply(tx.status, move.event)) return null;
  const refusal = move.refusals.find(
    (candidate) => candidate.from.includes(tx.status) && (!candidate.captured || tx.amountCaptured > 0),
  );
  if (refusal) return { code: refusal.code, message: refusal.message };
  return { code: 'INVALID_STATE_TRANSITION', message: `A transaction that is ${tx.status} cannot be ${move.done}` };
}

/** Every code `operation` may answer from a state that does not allow it. */
export const refusalCodes = (operation: TransactionOperation): string[] => [
  ...OPERATION_MOVES[operation].refusals.map((refusal) => refusal.code),
  'INVALID_STATE_TRANSITION',
];

// Status classes: the groups other rules name, kept here so they change with the moves.

/** Ended without taking money: nothing to capture or refund (only a lost answer's charge may need giving back). */
export const UNPAID_ENDS: readonly TransactionStatus[] = ['failed', 'expired', 'canceled'];

/** A charge that paid nothing in the end: never took money, or its authorization was released (a renewal unpaid). */
export const UNPAID_FINAL: readonly TransactionStatus[] = [...UNPAID_ENDS, 'voided'];

/** Waiting on the provider of the charge's connector: a payment, a hold, or a capture or refund it has not decided. */
export const AWAITING_PROVIDER: readonly TransactionStatus[] = [
  'pending',
  'pre_authorized',
  'capture_pending',
  'refund_pending',
];

export interface RefundPosition {
  amountCaptured: number;
  amountRefunded: number;
  pendingRefunds: number;
}

/** The status the refunds say (see MoveTarget 'by_refunds'). */
export function statusByRefunds({ amountCaptured, amountRefunded, pendingRefunds }: RefundPosition): TransactionStatus {
  if (pendingRefunds > 0) return 'refund_pending';
  if (amountRefunded === 0) return 'authorized';
  return amountRefunded >= amountCaptured ? 'refunded' : 'partially_refunded';
}

/** The state a rule leads to and the events it records, for a transaction in `position`. */
export function resolveMove(
  rule: TransactionMoveRule,
  position: RefundPosition,
): { to: TransactionStatus; events: EventType[] } {
  const to = rule.to === 'by_refunds' ? statusByRefunds(position) : rule.to;
  const events = rule.emits === 'status' ? [`transaction.${to}` as EventType] : [...rule.emits];
  return { to, events };
}

/** The charge workflow's verdict (a target status, as its histories record it) as the event it stands for. */
export const CHARGE_EVENT_OF: Partial<Record<TransactionStatus, TransactionEvent>> = {
  authorized: 'charge_approved',
  pre_authorized: 'charge_approved_uncaptured',
  pending: 'charge_awaiting_payment',
  failed: 'charge_failed',
  expired: 'charge_expired',
  canceled: 'charge_canceled',
};
