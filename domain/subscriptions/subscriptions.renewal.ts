/** What a renewal charge tells the provider: it is merchant-initiated on a stored card, referencing the first one. */
import type { EntityManager } from '@mikro-orm/postgresql';
import { PaymentInstrumentSchema, SubscriptionSchema } from '../../db/entities';
import { renewalRow, type RenewalIds } from '../../db/repositories/subscriptions.repository';

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

/** Everything a due renewal reads before it is charged (billing holds, the charge's inputs), as one row. */
export interface RenewalReads {
  /** Document 3's billing holds: why billing is held, or an empty list. */
  held: string[];
  subscription: { country: string; preferredInstallments: number } | null;
  offer: { id: string; name: string } | null;
  product: { id: string; name: string } | null;
  instrument: { status: string; cardBrand: string | null; issuerCountry: string | null } | null;
}

/**
 * The one read of a due renewal: the holds that activities' billingHoldOf applies and the rows
 * prepareRenewalCharge reads, in one statement instead of seven. Scoped to the subscription's merchant.
 */
export async function readRenewal(em: EntityManager, ids: RenewalIds): Promise<RenewalReads> {
  const row = await renewalRow(em, ids);
  const held: string[] = [];
  // A suspended or inactive merchant is not billed (Document 3: "temporarily blocked"); reactivation releases it.
  if (row.merchant_status !== null && row.merchant_status !== 'active') held.push('merchant_not_active');
  if (!row.active_connectors) held.push('no_active_connector');
  // Archived means no new sign-ups; its subscribers keep renewing. Only a deleted offer is unavailable.
  if (!row.offer_id || row.offer_deleted_at !== null) held.push('offer_unavailable');
  return {
    held,
    subscription:
      row.country === null ? null : { country: row.country, preferredInstallments: row.preferred_installments ?? 1 },
    offer: row.offer_id ? { id: row.offer_id, name: row.offer_name! } : null,
    product: row.product_id ? { id: row.product_id, name: row.product_name! } : null,
    instrument: row.instrument_status
      ? { status: row.instrument_status, cardBrand: row.card_brand, issuerCountry: row.issuer_country }
      : null,
  };
}
