/**
 * Enrolment tokens. A browser session opened for a checkout enrols cards for that checkout's
 * customer; one opened without a checkout enrols a card only with a token the merchant's server minted for one of
 * its customers. Everything else the browser holds (the public key, a session, a customer id) is public or
 * attacker-made, so without this the public key alone was a card-testing oracle. Short-lived and single use: the
 * merchant's server decides how many verifications a buyer gets. Stored by its SHA-256, never in plain text.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Static } from '@sinclair/typebox';
import { hashSecret } from '../../../domain/platform/crypto';
import { randomBase62 } from '../../../domain/platform/ids';
import { ApiError, errors } from '../../../domain/platform/errors';
import {
  insertEnrolmentToken,
  markEnrolmentTokenUsed,
  purgeExpiredEnrolmentTokens,
  usableEnrolmentTokenCustomer,
} from '../../../db/repositories/enrolment-tokens.repository';
import { requireMerchantCustomer } from '../payment-instruments/payment-instruments.service';
import { ENROLMENT_TOKEN_DEFAULT_MINUTES, type CreateEnrolmentTokenBody } from './enrolment-tokens.schema';

export interface MintedEnrolmentToken {
  token: string;
  merchantId: string;
  customerId: string;
  expiresAt: Date;
}

/** Expired tokens are kept a day (so a late use is told "expired", not "unknown"), then deleted. */
const KEEP_EXPIRED_MS = 24 * 60 * 60 * 1000;

export async function mintEnrolmentToken(
  em: EntityManager,
  merchantId: string,
  input: Static<typeof CreateEnrolmentTokenBody>,
  now: Date,
): Promise<MintedEnrolmentToken> {
  await requireMerchantCustomer(em, merchantId, input.customer_id, 'customer_id');
  const token = `enr_${randomBase62(32)}`;
  const expiresAt = new Date(now.getTime() + (input.expires_in_minutes ?? ENROLMENT_TOKEN_DEFAULT_MINUTES) * 60_000);
  await purgeExpiredEnrolmentTokens(em, new Date(now.getTime() - KEEP_EXPIRED_MS));
  await insertEnrolmentToken(em, {
    tokenHash: hashSecret(token),
    merchantId,
    customerId: input.customer_id,
    expiresAt,
    createdAt: now,
  });
  return { token, merchantId, customerId: input.customer_id, expiresAt };
}

const invalid = () =>
  new ApiError(
    403,
    'authorization_error',
    'ENROLMENT_TOKEN_INVALID',
    "The enrolment token is unknown, expired, already used or another merchant's; ask the merchant's server for a new one",
  );

/** The customer an enrolment token was minted for; 403 ENROLMENT_TOKEN_INVALID when it cannot be used by `usedBy`. */
export async function enrolmentTokenCustomer(
  em: EntityManager,
  merchantId: string,
  token: string,
  usedBy: string,
  now: Date,
): Promise<string> {
  const customerId = await usableEnrolmentTokenCustomer(em, merchantId, hashSecret(token), usedBy, now);
  if (!customerId) throw invalid();
  return customerId;
}

/**
 * Spends the token on the verification `usedBy` (inside the enrolment's claim transaction, so a request refused
 * before it changes nothing). The same verification may spend it again: its retry after no answer.
 */
export async function spendEnrolmentToken(
  em: EntityManager,
  merchantId: string,
  token: string,
  usedBy: string,
  now: Date,
): Promise<void> {
  if (!(await markEnrolmentTokenUsed(em, merchantId, hashSecret(token), usedBy, now))) throw invalid();
}

export const enrolmentTokenRequired = () =>
  errors.validation({
    enrolmentToken: [
      'is required: a browser session without a checkout enrols a card only with an enrolment token minted by ' +
        "the merchant's server (POST /merchants/:merchant_id/enrolment-tokens)",
    ],
  });
