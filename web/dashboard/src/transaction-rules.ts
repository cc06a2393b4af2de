/**
 * The payment states the Dashboard lists and which money action each allows, to disable a button with the reason
 * before the API would answer 422. The API's own lists are db/entities (the statuses) and the transaction's move
 * table (domain/transactions/transactions.state-table.ts); the web app imports nothing from the server, so these
 * mirror them and test/unit/dashboard-rules-sync.test.ts fails when they drift. The API stays the judge.
 */
export const TRANSACTION_STATUSES = [
  'pending',
  'pre_authorized',
  'authorized',
  'failed',
  'canceled',
  'voided',
  'charged_back',
  'refund_pending',
  'capture_pending',
  'refunded',
  'partially_refunded',
  'expired',
];

export const ORDER_STATUSES = [
  'pending',
  'pre_authorized',
  'authorized',
  'failed',
  'canceled',
  'refund_pending',
  'partially_refunded',
  'refunded',
  'charged_back',
];

/** A hold is captured or voided from the same state. */
export const CAPTURABLE = ['pre_authorized'];
export const VOIDABLE = ['pre_authorized'];
/** A further refund may follow one still pending (up to the balance left). */
export const REFUNDABLE = ['authorized', 'partially_refunded', 'refund_pending'];
