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

/** What subscriptions refer to by id, for their names. */
export interface SubscriptionReferences {
  customerIds: string[];
  offerIds: string[];
  productIds: string[];
  connectorIds: string[];
}

export interface SubscriptionReferenceNames {
  customers: Array<{ id: string; name: string | null; email: string | null }>;
  offers: Array<{ id: string; name: string }>;
  products: Array<{ id: string; name: string }>;
  connectors: Array<{ id: string; name: string }>;
}

/**
 * The names of the customers, offers, products and connectors subscriptions refer to, in one statement and only
 * within `merchantId`: a page of subscriptions costs one round trip for its names, not one per table. Each id list
 * is bound as one JSON array (knex would spread a JS array into a list of bindings).
 */
export async function referenceNames(
  em: EntityManager,
  merchantId: string,
  ids: SubscriptionReferences,
): Promise<SubscriptionReferenceNames> {
  const [row] = await em.execute<SubscriptionReferenceNames[]>(
    `select
       (select coalesce(json_agg(json_build_object('id', c.id, 'name', c.name, 'email', c.email)), '[]')
          from customers c where c.merchant_id = ? and c.id in (select jsonb_array_elements_text(?::jsonb))) as customers,
       (select coalesce(json_agg(json_build_object('id', o.id, 'name', o.name)), '[]')
          from offers o where o.merchant_id = ? and o.id in (select jsonb_array_elements_text(?::jsonb))) as offers,
       (select coalesce(json_agg(json_build_object('id', p.id, 'name', p.name)), '[]')
          from products p where p.merchant_id = ? and p.id in (select jsonb_array_elements_text(?::jsonb))) as products,
       (select coalesce(json_agg(json_build_object('id', k.id, 'name', k.name)), '[]')
          from merchant_connectors k where k.merchant_id = ? and k.id in (select jsonb_array_elements_text(?::jsonb))) as connectors`,
    [
      merchantId,
      JSON.stringify(ids.customerIds),
      merchantId,
      JSON.stringify(ids.offerIds),
      merchantId,
      JSON.stringify(ids.productIds),
      merchantId,
      JSON.stringify(ids.connectorIds),
    ],
  );
  return row;
}
