/**
 * Card tokens (tok_): minted from encrypted browser card data, single use, 15 minutes. The PAN (and the
 * cardholder name) are stored envelope-encrypted; the CVC waits, encrypted, in the unlogged card_token_cvcs
 * table for the one operation that consumes the token, which deletes it. A used or expired token keeps only
 * its non-sensitive description.
 */
import { wipeExpiredTokens } from '../../../db/repositories/card-tokens.repository';
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Static } from '@sinclair/typebox';
import {
  CardTokenCvcSchema,
  CardTokenSchema,
  CheckoutItemSchema,
  CheckoutSessionSchema,
  OfferSchema,
  type BrowserSession,
  type CardToken,
  type TokenPurpose,
  type TokenStatus,
} from '../../../db/entities';
import type { Config } from '../../../domain/platform/config';
import { errors } from '../../../domain/platform/errors';
import { encryptSecret } from '../../../domain/platform/crypto';
import { newId } from '../../../domain/platform/ids';
import { cardFingerprint } from '../../../domain/platform/vault-keys';
import { paymentSettings } from '../browser-sessions/payment-settings.service';
import { decryptAndCheckCard } from './card-input.service';
import type { CreateTokenBody } from './tokens.schema';

export const TOKEN_TTL_MS = 15 * 60 * 1000;

type CreateInput = Static<typeof CreateTokenBody>;

export function effectiveTokenStatus(token: CardToken, now: Date): TokenStatus {
  if (token.status === 'active' && token.expiresAt.getTime() <= now.getTime()) return 'expired';
  return token.status;
}

/**
 * Wipes the sealed card data of tokens past their expiry: their CVC rows go, their PAN and name columns are
 * nulled and they are stored as expired. Runs before every mint and enrolment, and on the housekeeping schedule
 * (so sealed card data never outlives its token by more than one run when nobody mints), in its own short
 * transaction (a fork outside the request's), so it sticks even when the request then fails; rows another
 * request holds locked are skipped rather than waited for. Returns how many tokens and CVCs were wiped.
 */
export async function sweepExpiredTokens(em: EntityManager, now: Date): Promise<{ tokens: number; cvcs: number }> {
  return em.fork().transactional((tx) => wipeExpiredTokens(tx, now));
}

/** Recurring offers always enrol the card; so does save_card inside a one-time checkout. */
async function purposeFor(em: EntityManager, session: BrowserSession, input: CreateInput): Promise<TokenPurpose> {
  if (!session.checkoutSessionId) return input.purpose ?? 'one_time';
  const checkout = await em.findOneOrFail(CheckoutSessionSchema, { id: session.checkoutSessionId });
  const items = await em.find(CheckoutItemSchema, { checkoutSessionId: checkout.id });
  const offerIds = [...new Set([checkout.offerId, ...items.map((item) => item.offerId)])];
  const recurring = await em.count(OfferSchema, { id: { $in: offerIds }, billingCycle: { $ne: 'none' } });
  if (recurring > 0 || input.save_card === true) return 'instrument_enrollment';
  return input.purpose ?? 'one_time';
}

export async function mintToken(
  em: EntityManager,
  config: Pick<Config, 'vault' | 'encryptionKeys'>,
  session: BrowserSession,
  input: CreateInput,
  now: Date,
): Promise<CardToken> {
  const card = decryptAndCheckCard(config.vault, session.id, input.encryptedCard, input.metadata, now);
  const settings = await paymentSettings(em, session.merchantId);
  if (!settings.cardBrands.includes(card.brand)) {
    throw errors.businessRule('CARD_BRAND_NOT_ALLOWED', `This merchant does not accept ${card.brand} cards`, {
      card_brand: card.brand,
      allowed_card_brands: settings.cardBrands,
    });
  }
  await sweepExpiredTokens(em, now);
  const expiresAt = new Date(now.getTime() + TOKEN_TTL_MS);
  const token = em.create(CardTokenSchema, {
    id: newId('tok'),
    organizationId: session.organizationId,
    merchantId: session.merchantId,
    browserSessionId: session.id,
    checkoutSessionId: session.checkoutSessionId,
    purpose: await purposeFor(em, session, input),
    status: 'active',
    cardBrand: card.brand,
    last4: card.last4,
    bin: card.bin,
    expMonth: card.expMonth,
    expYear: card.expYear,
    panEncrypted: encryptSecret(config.encryptionKeys, card.pan),
    holderNameEncrypted: card.holderName === null ? null : encryptSecret(config.encryptionKeys, card.holderName),
    fingerprint: cardFingerprint(config.vault, card.pan),
    additionalMetadata: input.additionalMetadata ?? null,
    expiresAt,
    usedAt: null,
    usedBy: null,
    createdAt: now,
    updatedAt: now,
  } as CardToken);
  await em.flush();
  em.create(CardTokenCvcSchema, {
    cardTokenId: token.id,
    cvcEncrypted: encryptSecret(config.encryptionKeys, card.cvc),
    expiresAt,
  });
  await em.flush();
  return token;
}

export async function getToken(em: EntityManager, merchantId: string, tokenId: string): Promise<CardToken> {
  const token = await em.findOne(CardTokenSchema, { id: tokenId, merchantId });
  if (!token) throw errors.notFound('No such token');
  return token;
}

export interface TokenReference {
  merchantId: string;
  tokenId: string;
  /** The body field that named the token, for 400s. */
  field: string;
  purpose?: TokenPurpose;
  /** Tokens minted in another browser session are refused when set. */
  browserSessionId?: string;
}

/**
 * Locks and returns a token the caller may consume now. Unknown, another merchant's or another session's → 400
 * naming the field; wrong purpose → 400; already used → 409 TOKEN_ALREADY_USED; expired → 422 TOKEN_EXPIRED.
 * The row lock makes a concurrent second use wait, then see the token used.
 */
export async function lockUsableToken(em: EntityManager, ref: TokenReference, now: Date): Promise<CardToken> {
  const token = await em.findOne(
    CardTokenSchema,
    { id: ref.tokenId, merchantId: ref.merchantId },
    { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true },
  );
  if (!token || (ref.browserSessionId !== undefined && token.browserSessionId !== ref.browserSessionId)) {
    throw errors.invalidValue(ref.field, 'no such card token for this merchant');
  }
  const status = effectiveTokenStatus(token, now);
  if (status === 'used')
    throw errors.conflict('TOKEN_ALREADY_USED', 'This card token has already been used; tokenize the card again', {
      [ref.field]: ref.tokenId,
    });
  if (status === 'expired')
    throw errors.businessRule('TOKEN_EXPIRED', 'This card token has expired; tokenize the card again', {
      [ref.field]: ref.tokenId,
    });
  if (ref.purpose && token.purpose !== ref.purpose) {
    throw errors.invalidValue(ref.field, `must be an ${ref.purpose} token (this one is ${token.purpose})`);
  }
  return token;
}

/** Marks the token used by `usedBy` (pi_/tx_, or null when nothing was created) and wipes its sealed card data. */
export async function consumeToken(
  em: EntityManager,
  token: CardToken,
  usedBy: string | null,
  now: Date,
): Promise<void> {
  token.status = 'used';
  token.usedAt = now;
  token.usedBy = usedBy;
  token.panEncrypted = null;
  token.holderNameEncrypted = null;
  await em.flush();
  await em.nativeDelete(CardTokenCvcSchema, { cardTokenId: token.id });
}
