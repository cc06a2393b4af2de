/**
 * 3-D Secure around a charge attempt's provider call, called only when it is used: whether the merchant may start
 * it (asked for, or an issuer's own challenge), and what an answer that authenticated or challenged means for the
 * attempt (its three_ds record, its error code) and for the charge (a challenge to wait for). The card and
 * credentials never pass through here.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { MerchantSchema } from '../../db/entities';
import type { ProviderResult } from '../../domain/connectors/connector';
import { result } from '../../domain/connectors/http';
import {
  AUTHENTICATION_FAILED,
  isChallenge,
  MERCHANT_WEBSITE_REQUIRED,
  notRequested,
  type NextAction,
  type StoredThreeDs,
} from '../../workflows/lib/three-ds';

/**
 * The provider's card networks register the merchant's website with each 3-D Secure request (it is shown to the
 * buyer on the challenge), so a merchant without one cannot start it: the attempt is refused before any call.
 */
export async function websiteRefusal(em: EntityManager, merchantId: string): Promise<ProviderResult | null> {
  const merchant = await em.findOne(MerchantSchema, { id: merchantId }, { fields: ['website'] });
  if (merchant?.website) return null;
  return result('hard_decline', {
    rawCode: MERCHANT_WEBSITE_REQUIRED,
    rawMessage:
      "3-D Secure needs the merchant's website: set website on the merchant (PATCH /merchants/:merchant_id) and charge again",
  });
}

/**
 * An issuer's own challenge (isChallenge), on a charge that did not ask for 3-D Secure (`require_3ds: never`), needs
 * the website as much: without one, the payment is canceled at the provider (nobody can complete it: its challenge
 * is never shown) and the attempt fails merchant_website_required, on the payment's reference. With a website the
 * challenge is kept.
 */
export async function challengeWithoutWebsite(
  em: EntityManager,
  merchantId: string,
  answer: ProviderResult,
  cancel: (providerReference: string) => Promise<ProviderResult>,
): Promise<ProviderResult> {
  if (!answer.providerReference) return answer;
  const refusal = await websiteRefusal(em, merchantId);
  if (!refusal) return answer;
  await cancel(answer.providerReference);
  return { ...refusal, providerReference: answer.providerReference };
}

export interface AttemptAuthentication {
  /** The attempt's three_ds record. */
  stored: StoredThreeDs;
  /** The provider's answer as the attempt records it (a failed authentication under its own code). */
  answer: ProviderResult;
  /** The buyer's challenge the charge now waits for; null when there is none. */
  nextAction: NextAction | null;
}

/**
 * What a card attempt's answer says about its authentication, for an answer that says something: a challenge
 * (isChallenge) opens a wait until now + the configured window; otherwise the answer carries the provider's 3-D
 * Secure result (decidedAuthentication). Any other answer's record is `unauthenticated`, without this module.
 */
export function authenticationOf(
  answer: ProviderResult,
  { requested, challengeMs }: { requested: boolean; challengeMs: number },
): AttemptAuthentication {
  if (isChallenge(answer)) {
    const expiresAt = new Date(Date.now() + challengeMs).toISOString();
    return {
      stored: {
        ...notRequested(requested),
        status: 'challenged',
        redirect_url: answer.challengeUrl,
        expires_at: expiresAt,
      },
      answer,
      nextAction: { type: 'redirect_to_url', url: answer.challengeUrl, expires_at: expiresAt },
    };
  }
  return { ...decidedAuthentication(answer, answer.threeDs!, requested), nextAction: null };
}

/**
 * An answer that says how the card was authenticated: the attempt's record, and the answer under
 * authentication_failed when the buyer failed it (whatever the provider's own code), so the charge fails with it.
 */
export function decidedAuthentication(
  answer: ProviderResult,
  threeDs: NonNullable<ProviderResult['threeDs']>,
  requested: boolean,
): Omit<AttemptAuthentication, 'nextAction'> {
  const stored: StoredThreeDs = { requested, ...threeDs };
  const failed = stored.status === 'failed' && answer.outcome !== 'approved';
  return { stored, answer: failed ? { ...answer, rawCode: AUTHENTICATION_FAILED } : answer };
}
