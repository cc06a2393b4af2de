/**
 * Saved cards. An instrument is made from an instrument_enrollment token: the token's sealed PAN (and name) is
 * copied as-is (no decryption), the token is consumed, and the same card for the same customer — equal keyed
 * fingerprints — returns the existing live instrument instead (deduplicated: true). In test mode a test payment
 * method (pm_card_visa …) is sealed the same way from its sandbox card (test-payment-methods.service.ts).
 */
import type { FilterQuery } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  CustomerSchema,
  PaymentInstrumentSchema,
  type CardToken,
  type InstrumentStatus,
  type PaymentInstrument,
} from '../../../db/entities';
import { violatedUniqueConstraint } from '../../http/db-errors';
import { errors } from '../../../domain/platform/errors';
import { offsetOf, type PageRequest } from '../../http/pagination';
import { newId } from '../../../domain/platform/ids';
import { cardExpiresAt } from '../tokens/card.rules';
import { consumeToken, lockUsableToken, sweepExpiredTokens, type TokenReference } from '../tokens/tokens.service';
import { assertStatusMove, effectiveInstrumentStatusWhere } from './instrument-status.rules';

export const notFound = () => errors.notFound('No such payment instrument', 'PAYMENT_INSTRUMENT_NOT_FOUND');

/** A customer of this merchant, or 400 naming `field`. */
export async function requireMerchantCustomer(
  em: EntityManager,
  merchantId: string,
  customerId: string,
  field: string,
): Promise<void> {
  const count = await em.count(CustomerSchema, { id: customerId, merchantId });
  if (count === 0) throw errors.invalidValue(field, 'no such customer for this merchant');
}

/** What a successful zero-amount verification adds to the instrument. */
export interface VerificationFacts {
  networkTransactionId: string | null;
  connectorId: string | null;
}

export interface EnrolmentInput {
  organizationId: string;
  merchantId: string;
  customerId: string;
  metadata?: Record<string, unknown> | null;
  verification?: VerificationFacts;
}

/** The live (not revoked) instrument of this customer for the token's card, if any. */
export function findSameCard(
  em: EntityManager,
  merchantId: string,
  customerId: string,
  fingerprint: string,
): Promise<PaymentInstrument | null> {
  return em.findOne(PaymentInstrumentSchema, { merchantId, customerId, fingerprint, status: { $ne: 'revoked' } });
}

/** What an instrument is made of: a card the vault sealed and its non-sensitive description. */
export type SealedCardFacts = Pick<
  CardToken,
  'cardBrand' | 'last4' | 'bin' | 'expMonth' | 'expYear' | 'panEncrypted' | 'holderNameEncrypted' | 'fingerprint'
>;

/** A re-enrolled card may carry a later expiry (reissued with the same number): keep the later one; it is active again. */
function refreshExpiry(instrument: PaymentInstrument, card: SealedCardFacts): void {
  const cardExpiry = cardExpiresAt(card.expMonth, card.expYear);
  if (!instrument.cardExpiresAt || cardExpiry.getTime() > instrument.cardExpiresAt.getTime()) {
    instrument.expMonth = card.expMonth;
    instrument.expYear = card.expYear;
    instrument.cardExpiresAt = cardExpiry;
  }
  // The card is in date (checked when it was sealed), so enrolling it again makes the instrument usable.
  instrument.status = 'active';
}

/**
 * Saves a sealed card as the customer's instrument (or finds the existing one for the same card), in the caller's
 * transaction.
 */
export async function saveSealedCard(
  em: EntityManager,
  card: SealedCardFacts,
  input: EnrolmentInput,
  now: Date,
): Promise<{ instrument: PaymentInstrument; deduplicated: boolean }> {
  const existing = await findSameCard(em, input.merchantId, input.customerId, card.fingerprint);
  if (existing) {
    refreshExpiry(existing, card);
    return { instrument: existing, deduplicated: true };
  }
  try {
    // A savepoint: losing a race to a concurrent enrolment of the same card only rolls this insert back.
    const instrument = await em.transactional(async (inner) => {
      const created = inner.create(PaymentInstrumentSchema, {
        id: newId('pi'),
        organizationId: input.organizationId,
        merchantId: input.merchantId,
        customerId: input.customerId,
        instrumentType: 'card',
        cardBrand: card.cardBrand,
        cardType: null,
        last4: card.last4,
        bin: card.bin,
        issuerCountry: null,
        expMonth: card.expMonth,
        expYear: card.expYear,
        cardExpiresAt: cardExpiresAt(card.expMonth, card.expYear),
        status: 'active',
        panEncrypted: card.panEncrypted as string,
        holderNameEncrypted: card.holderNameEncrypted,
        fingerprint: card.fingerprint,
        networkTransactionId: input.verification?.networkTransactionId ?? null,
        verifiedConnectorId: input.verification?.connectorId ?? null,
        metadata: input.metadata ?? null,
        createdAt: now,
        updatedAt: now,
        revokedAt: null,
      } as PaymentInstrument);
      await inner.flush();
      return created;
    });
    return { instrument, deduplicated: false };
  } catch (error) {
    if (violatedUniqueConstraint(error) !== 'payment_instruments_customer_card_key') throw error;
    const winner = await findSameCard(em, input.merchantId, input.customerId, card.fingerprint);
    if (!winner) throw error;
    return { instrument: winner, deduplicated: true };
  }
}

/**
 * Turns a locked, usable enrolment token into an instrument (or finds the existing one) and consumes the token,
 * all in the caller's transaction.
 */
export async function enrolToken(
  em: EntityManager,
  token: CardToken,
  input: EnrolmentInput,
  now: Date,
): Promise<{ instrument: PaymentInstrument; deduplicated: boolean }> {
  const saved = await saveSealedCard(em, token, input, now);
  await consumeToken(em, token, saved.instrument.id, now);
  return saved;
}

/** POST /merchants/:merchant_id/payment-instruments: enrol a card from its token without contacting a provider. */
export async function createInstrument(
  em: EntityManager,
  input: EnrolmentInput & { tokenId: string },
  now: Date,
): Promise<{ instrument: PaymentInstrument; deduplicated: boolean }> {
  await requireMerchantCustomer(em, input.merchantId, input.customerId, 'customer_id');
  await sweepExpiredTokens(em, now);
  const ref: TokenReference = {
    merchantId: input.merchantId,
    tokenId: input.tokenId,
    field: 'card_ciphertext_id',
    purpose: 'instrument_enrollment',
  };
  const token = await lockUsableToken(em, ref, now);
  return enrolToken(em, token, input, now);
}

export async function getInstrument(em: EntityManager, merchantId: string, id: string): Promise<PaymentInstrument> {
  const instrument = await em.findOne(PaymentInstrumentSchema, { id, merchantId });
  if (!instrument) throw notFound();
  return instrument;
}

export interface InstrumentFilter extends PageRequest {
  customer_id?: string;
  status?: InstrumentStatus[];
  card_brand?: string;
  card_type?: string;
  last4?: string;
  bin?: string;
  issuer_country?: string;
}

export async function listInstruments(
  em: EntityManager,
  merchantId: string,
  filter: InstrumentFilter,
  now: Date,
): Promise<{ items: PaymentInstrument[]; total: number }> {
  const clauses: FilterQuery<PaymentInstrument>[] = [{ merchantId }];
  if (filter.customer_id) clauses.push({ customerId: filter.customer_id });
  if (filter.status) clauses.push(effectiveInstrumentStatusWhere(filter.status, now));
  if (filter.card_brand) clauses.push({ cardBrand: filter.card_brand.toLowerCase() });
  if (filter.card_type) clauses.push({ cardType: filter.card_type as PaymentInstrument['cardType'] });
  if (filter.last4) clauses.push({ last4: filter.last4 });
  if (filter.bin) clauses.push(filter.bin.length === 6 ? { bin: { $like: `${filter.bin}%` } } : { bin: filter.bin });
  if (filter.issuer_country) clauses.push({ issuerCountry: filter.issuer_country.toUpperCase() });
  const [items, total] = await em.findAndCount(
    PaymentInstrumentSchema,
    { $and: clauses },
    {
      orderBy: { createdAt: 'desc', id: 'desc' },
      limit: filter.limit,
      offset: offsetOf(filter),
    },
  );
  return { items, total };
}

export async function updateInstrumentStatus(
  em: EntityManager,
  merchantId: string,
  id: string,
  status: InstrumentStatus,
  now: Date,
): Promise<PaymentInstrument> {
  const instrument = await getInstrument(em, merchantId, id);
  assertStatusMove(instrument, status, now);
  if (instrument.status !== status) {
    instrument.status = status;
    if (status === 'revoked') instrument.revokedAt = now;
    await em.flush();
  }
  return instrument;
}

/** DELETE revokes (permanently); revoking a revoked instrument changes nothing. */
export async function revokeInstrument(em: EntityManager, merchantId: string, id: string, now: Date): Promise<void> {
  await updateInstrumentStatus(em, merchantId, id, 'revoked', now);
}

/** The customer's instruments that can be charged now (saved cards offered to the browser), newest first. */
export function chargeableInstruments(
  em: EntityManager,
  merchantId: string,
  customerId: string,
  now: Date,
): Promise<PaymentInstrument[]> {
  return em.find(
    PaymentInstrumentSchema,
    { $and: [{ merchantId, customerId }, effectiveInstrumentStatusWhere(['active'], now)] },
    { orderBy: { createdAt: 'desc', id: 'desc' } },
  );
}
