/**
 * The provider's event mapped onto what it does to our objects, with no I/O: which object it names (a refund, a
 * capture or void, a payment, a dispute) and, for a payment verdict, what the transaction's status lets it do. The
 * effects (provider-webhooks.effects.ts) follow these answers; unit tests check them without a server.
 */
import type { TransactionStatus } from '../../db/entities';
import type { InboundWebhook } from '../connectors/connector';
import { canApply, UNPAID_ENDS } from '../transactions/transactions.state-table';

type Outcome = 'succeeded' | 'failed';

/** What an authentic event acts on. */
export type ProviderEffect =
  | { kind: 'refund'; result: Outcome }
  | { kind: 'operation'; operation: 'capture' | 'void'; result: Outcome }
  | { kind: 'payment' }
  | { kind: 'dispute_opened' }
  | { kind: 'dispute_updated' }
  | { kind: 'dispute_closed'; outcome: 'won' | 'lost' | null };

export function effectOf(event: Pick<InboundWebhook, 'type' | 'disputeOutcome'>): ProviderEffect {
  switch (event.type) {
    case 'refund.succeeded':
    case 'refund.failed':
      return { kind: 'refund', result: event.type === 'refund.succeeded' ? 'succeeded' : 'failed' };
    case 'capture.succeeded':
    case 'capture.failed':
    case 'void.succeeded':
    case 'void.failed':
      return {
        kind: 'operation',
        operation: event.type.startsWith('capture.') ? 'capture' : 'void',
        result: event.type.endsWith('.succeeded') ? 'succeeded' : 'failed',
      };
    case 'payment.succeeded':
    case 'payment.failed':
    case 'payment.expired':
      return { kind: 'payment' };
    case 'dispute.opened':
      return { kind: 'dispute_opened' };
    case 'dispute.updated':
      return { kind: 'dispute_updated' };
    case 'dispute.closed':
      return { kind: 'dispute_closed', outcome: event.disputeOutcome ?? null };
  }
}

/**
 * What a payment verdict does to the transaction it names:
 * - `signal`: the charge awaits a verdict (the state table's charge moves say from where), so the settlement
 *   workflow is told;
 * - `amount_mismatch`: a payment.succeeded for another amount than the charge's (when the provider states one) is
 *   recorded, not applied — settling it would mark as paid an order the customer under- or overpaid;
 * - `give_back`: money the provider took after the charge ended unpaid (a boleto compensated after its due date, a
 *   pix paid after it expired) is handed to the reconciler to give back;
 * - `ignore`: any other verdict on a charge that no longer awaits one.
 */
export type PaymentVerdictEffect = 'signal' | 'amount_mismatch' | 'give_back' | 'ignore';

export function paymentVerdictEffect(
  tx: { status: TransactionStatus; amount: number },
  event: Pick<InboundWebhook, 'type' | 'amount'>,
): PaymentVerdictEffect {
  if (!canApply(tx.status, 'charge_approved')) {
    return event.type === 'payment.succeeded' && UNPAID_ENDS.includes(tx.status) ? 'give_back' : 'ignore';
  }
  if (event.type === 'payment.succeeded' && event.amount !== null && event.amount !== tx.amount)
    return 'amount_mismatch';
  return 'signal';
}

/** What a refused delivery's InvalidWebhookError says, as a reason the Dashboard can filter on. */
export const refusalReason = (message: string): 'bad_signature' | 'malformed_body' =>
  /signature|authentication|hmac|secret|timestamp/i.test(message) ? 'bad_signature' : 'malformed_body';
