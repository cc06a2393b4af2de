/** What a renewal charge tells the provider: it is merchant-initiated on a stored card, referencing the first one. */
import type { EntityManager } from '@mikro-orm/postgresql';
import { PaymentInstrumentSchema, SubscriptionSchema } from '../../db/entities';

/**
 * The network transaction id a merchant-initiated renewal references: the subscription's initial one, else the
 * instrument's (from its zero-amount verification); null when neither is known (the provider then decides).
 */
export async function recurringReferenceOf(em: EntityManager, subscriptionId: string): Promise<string | null> {
  const sub = await em.findOne(SubscriptionSchema, { id: subscriptionId });
  if (!sub) return null;
  if (sub.initialNetworkTransactionId) return sub.initialNetworkTransactionId;
  const instrument = await em.findOne(PaymentInstrumentSchema, { id: sub.paymentInstrumentId });
  return instrument?.networkTransactionId ?? null;
}
