/**
 * The only code that opens sealed cards, for the activity about to call a provider: a token's PAN, name and
 * CVC, or a saved instrument's PAN and name (merchant-initiated charges carry no CVC). What it returns must go
 * straight to the adapter: never into a log line, an error message, an activity result or a workflow payload.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { CardTokenCvcSchema, CardTokenSchema, PaymentInstrumentSchema } from '../../db/entities';
import { decryptSecret, type KeyMaterial } from '../../domain/platform/crypto';
import type { CardData } from '../../domain/connectors/connector';
import type { SealedCard } from '../../db/repositories/transaction-attempt-reads.repository';

/** The sealed card cannot be read for a business reason (not an outage): the charge attempt fails, not retried. */
export class CardUnavailableError extends Error {
  override name = 'CardUnavailableError';
}

/** The card of an active token; throws when the token is missing, used or expired (its data is gone then). */
export async function readTokenCard(
  em: EntityManager,
  keys: KeyMaterial,
  merchantId: string,
  tokenId: string,
): Promise<CardData> {
  const token = await em.findOne(CardTokenSchema, { id: tokenId, merchantId });
  const cvc = token && (await em.findOne(CardTokenCvcSchema, { cardTokenId: tokenId }));
  return tokenCardOf(
    keys,
    tokenId,
    token && {
      status: token.status,
      expiresAt: token.expiresAt,
      panEncrypted: token.panEncrypted,
      holderNameEncrypted: token.holderNameEncrypted,
      expMonth: token.expMonth,
      expYear: token.expYear,
      cvcEncrypted: cvc?.cvcEncrypted ?? null,
    },
  );
}

/** readTokenCard on a token already read (null: none for this merchant). */
export function tokenCardOf(
  keys: KeyMaterial,
  tokenId: string,
  token: (SealedCard & { status: string; expiresAt: Date; cvcEncrypted: string | null }) | null,
): CardData {
  if (!token || token.status !== 'active' || !token.panEncrypted || token.expiresAt.getTime() <= Date.now()) {
    throw new CardUnavailableError(`Card token ${tokenId} is not usable (missing, used or expired)`);
  }
  return {
    number: decryptSecret(keys, token.panEncrypted),
    cvc: token.cvcEncrypted ? decryptSecret(keys, token.cvcEncrypted) : null,
    expMonth: token.expMonth ?? 0,
    expYear: token.expYear ?? 0,
    holderName: token.holderNameEncrypted ? decryptSecret(keys, token.holderNameEncrypted) : null,
  };
}

/** The card of a saved instrument (no CVC is ever kept for one). */
export async function readInstrumentCard(
  em: EntityManager,
  keys: KeyMaterial,
  merchantId: string,
  instrumentId: string,
): Promise<CardData> {
  const instrument = await em.findOne(PaymentInstrumentSchema, { id: instrumentId, merchantId });
  return instrumentCardOf(keys, instrumentId, instrument);
}

/** readInstrumentCard on an instrument already read (null: none for this merchant). */
export function instrumentCardOf(keys: KeyMaterial, instrumentId: string, instrument: SealedCard | null): CardData {
  if (!instrument?.panEncrypted) throw new CardUnavailableError(`Payment instrument ${instrumentId} does not exist`);
  return {
    number: decryptSecret(keys, instrument.panEncrypted),
    cvc: null,
    expMonth: instrument.expMonth ?? 0,
    expYear: instrument.expYear ?? 0,
    holderName: instrument.holderNameEncrypted ? decryptSecret(keys, instrument.holderNameEncrypted) : null,
  };
}
