/**
 * The card a recurring first charge kept as the customer's instrument while the charge was pending (held for
 * review: keepTransactionCard, domain/subscriptions/subscriptions.first-transaction.ts) must not outlive a charge that then
 * takes no money: a failed, expired or canceled charge revokes it, as DELETE /payment-instruments would. The row and
 * the transaction's payment_instrument_id stay (what was charged); the card can be enrolled again.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { PaymentInstrumentSchema, SubscriptionSchema, TransactionSchema, type Transaction } from '../../db/entities';
import { idFromSeed } from '../platform/ids';

export async function revokeCardKeptByCharge(em: EntityManager, tx: Transaction): Promise<void> {
  // Only the instrument this charge created (its id derives from the transaction): a card the customer had saved
  // before, which the charge merely found, stays theirs.
  const keptId = idFromSeed('pi', tx.id);
  if (tx.paymentInstrumentId !== keptId) return;
  const instrument = await em.findOne(PaymentInstrumentSchema, { id: keptId, merchantId: tx.merchantId });
  if (!instrument || instrument.status === 'revoked') return;
  // Already used by another charge or a subscription meanwhile: it is the customer's card now, not this charge's.
  const usedElsewhere =
    (await em.count(TransactionSchema, { paymentInstrumentId: keptId, id: { $ne: tx.id } })) > 0 ||
    (await em.count(SubscriptionSchema, { paymentInstrumentId: keptId })) > 0;
  if (usedElsewhere) return;
  const now = new Date();
  instrument.status = 'revoked';
  instrument.revokedAt = now;
  instrument.updatedAt = now;
  await em.flush();
}
