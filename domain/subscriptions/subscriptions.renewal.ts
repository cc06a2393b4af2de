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
export async function readRenewal(
  em: EntityManager,
  ids: { subscriptionId: string; merchantId: string; offerId: string; productId: string; paymentInstrumentId: string },
): Promise<RenewalReads> {
  const [row] = await em.execute<
    Array<{
      merchant_status: string | null;
      active_connectors: boolean;
      offer_id: string | null;
      offer_name: string | null;
      offer_deleted_at: Date | null;
      product_id: string | null;
      product_name: string | null;
      country: string | null;
      preferred_installments: number | null;
      instrument_status: string | null;
      card_brand: string | null;
      issuer_country: string | null;
    }>
  >(
    `select m.status as merchant_status,
            exists (select 1 from merchant_connectors mc where mc.merchant_id = ? and mc.is_active) as active_connectors,
            o.id as offer_id, o.name as offer_name, o.deleted_at as offer_deleted_at,
            p.id as product_id, p.name as product_name,
            s.country, s.preferred_installments,
            pi.status as instrument_status, pi.card_brand, pi.issuer_country
       from (select 1) as one
       left join merchants m on m.id = ?
       left join offers o on o.id = ? and o.merchant_id = ?
       left join products p on p.id = ? and p.merchant_id = ?
       left join subscriptions s on s.id = ? and s.merchant_id = ?
       left join payment_instruments pi on pi.id = ? and pi.merchant_id = ?`,
    [
      ids.merchantId,
      ids.merchantId,
      ids.offerId,
      ids.merchantId,
      ids.productId,
      ids.merchantId,
      ids.subscriptionId,
      ids.merchantId,
      ids.paymentInstrumentId,
      ids.merchantId,
    ],
  );
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
