/**
 * payment_instruments writes that are an upsert: the card of a paid first subscription charge kept as a saved
 * instrument (the API's enrolment lives in api/modules/payment-instruments; both honour the same one-live-card-
 * per-customer index, so saving an already-saved card returns the existing instrument).
 */
import type { EntityManager } from '@mikro-orm/postgresql';

export interface CardFromToken {
  id: string;
  organizationId: string;
  merchantId: string;
  customerId: string;
  tokenId: string;
  networkTransactionId: string | null;
  connectorId: string | null;
}

/**
 * Copies the still-sealed card of an active token into a new instrument, or finds the customer's live instrument
 * for the same card (equal fingerprint). Returns the instrument id, or null when the token holds no card anymore.
 */
export async function saveCardFromToken(em: EntityManager, card: CardFromToken): Promise<string | null> {
  await em.execute(
    `insert into payment_instruments (id, organization_id, merchant_id, customer_id, instrument_type, card_brand, last4,
       bin, exp_month, exp_year, card_expires_at, status, pan_encrypted, holder_name_encrypted, fingerprint,
       network_transaction_id, verified_connector_id)
     select ?, ?, ?, ?, 'card', t.card_brand, t.last4, t.bin, t.exp_month, t.exp_year,
            make_timestamptz(t.exp_year, t.exp_month, 1, 0, 0, 0, 'UTC') + interval '1 month', 'active',
            t.pan_encrypted, t.holder_name_encrypted, t.fingerprint, ?, ?
       from card_tokens t where t.id = ? and t.merchant_id = ? and t.pan_encrypted is not null
     on conflict (merchant_id, customer_id, fingerprint) where status <> 'revoked' do nothing`,
    [
      card.id,
      card.organizationId,
      card.merchantId,
      card.customerId,
      card.networkTransactionId,
      card.connectorId,
      card.tokenId,
      card.merchantId,
    ],
  );
  const [row] = await em.execute<Array<{ id: string }>>(
    `select p.id from payment_instruments p join card_tokens t on t.fingerprint = p.fingerprint
      where t.id = ? and p.merchant_id = ? and p.customer_id = ? and p.status <> 'revoked'`,
    [card.tokenId, card.merchantId, card.customerId],
  );
  return row?.id ?? null;
}
