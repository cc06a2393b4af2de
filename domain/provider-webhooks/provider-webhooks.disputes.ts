/**
 * A provider's dispute events on a transaction: dispute.opened moves it to charged_back, dispute.updated records its
 * event, dispute.closed decides it (docs/api-decisions.md, "Disputes"). The moves go through
 * domain/transactions/transactions.transitions.ts, the same code the workflows use.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Transaction } from '../../db/entities';
import { recordEvent } from '../events/events.outbox';
import { announceRefundsSettledDuringDispute } from '../transactions/transactions.refunds';
import { presentTransactionHeader } from '../transactions/transactions.presenter';
import { applyTransactionMove } from '../transactions/transactions.transitions';

/** The event types are spelled out in the parameter: the event catalog's producer scan reads them there. */
const recordDisputeEvent = (
  em: EntityManager,
  type:
    | 'transaction.dispute_updated'
    | 'transaction.dispute_won'
    | 'transaction.dispute_lost'
    | 'transaction.dispute_closed',
  tx: Transaction,
) =>
  recordEvent(em, {
    organizationId: tx.organizationId,
    merchantId: tx.merchantId,
    livemode: tx.livemode,
    type,
    object: presentTransactionHeader(tx),
  });

/** `key`: the provider event's own (connector and event id), so a move is applied once. */
export async function openDispute(em: EntityManager, tx: Transaction, key: string): Promise<void> {
  await applyTransactionMove(em, tx.id, { event: 'dispute_opened', triggeredBy: 'psp_webhook', key });
}

export async function updateDispute(em: EntityManager, tx: Transaction): Promise<void> {
  await recordDisputeEvent(em, 'transaction.dispute_updated', tx);
}

/**
 * A decided dispute: won gives the money back, so a charged_back transaction returns to the state before the
 * dispute (the state table's dispute_won: transaction.dispute_won is its one event); lost keeps it charged_back
 * (transaction.dispute_lost).
 * Either way transaction.dispute_closed follows; an outcome the provider does not state closes it without either.
 */
export async function closeDispute(
  em: EntityManager,
  tx: Transaction,
  outcome: 'won' | 'lost' | null,
  key: string,
): Promise<void> {
  let current = tx;
  if (outcome === 'won') {
    const moved = await applyTransactionMove(em, tx.id, { event: 'dispute_won', triggeredBy: 'psp_webhook', key });
    if (moved) {
      current = moved;
      await announceRefundsSettledDuringDispute(em, moved);
    } else await recordDisputeEvent(em, 'transaction.dispute_won', tx);
  } else if (outcome === 'lost') {
    await recordDisputeEvent(em, 'transaction.dispute_lost', tx);
  }
  await recordDisputeEvent(em, 'transaction.dispute_closed', current);
}
