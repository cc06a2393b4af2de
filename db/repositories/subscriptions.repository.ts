/**
 * subscriptions: the raw reads of the billing engine. The subscription's rows are written through domain/subscriptions
 * (entities); a due renewal reads what it needs here in one statement.
 */
import type { EntityManager } from '@mikro-orm/postgresql';

/** The rows a due renewal reads, each within the subscription's merchant. */
export interface RenewalIds {
  subscriptionId: string;
  merchantId: string;
  offerId: string;
  productId: string;
  paymentInstrumentId: string;
}

/** One row: the merchant's status and whether it has an active connector, and the offer, product, subscription
 * and instrument columns a renewal charge needs (null where a row is missing or another merchant's). */
export interface RenewalRow {
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
}

/** A due renewal's reads in one statement instead of seven, scoped to the subscription's merchant. */
export async function renewalRow(em: EntityManager, ids: RenewalIds): Promise<RenewalRow> {
  const [row] = await em.execute<RenewalRow[]>(
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
  return row;
}
