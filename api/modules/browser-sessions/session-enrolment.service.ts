/**
 * POST /sessions/:sessionId/payment-instruments: verify the card of an enrolment token with a zero-amount check
 * (routed like a charge, or on the named connector) and save it for merchant-initiated charges. In phases, so no
 * database transaction (or token row lock) is held while the verification workflow runs: claim the token (its
 * `used_by` names the verification) and commit, so a concurrent second use gets 409 TOKEN_ALREADY_USED; verify;
 * then save the card and consume the token. Any verification attempt consumes it (the CVC has been used),
 * approved or not; one that gets no answer releases the claim, and the retry finds the same verification workflow.
 * In a checkout session's setup mode (the hosted "save a card" page) this is how the buyer completes the checkout:
 * the claim takes the checkout too, and the saved card completes it (checkout-setup.service.ts).
 */
import { recordCardSetupOrder } from '../../../db/repositories/orders.repository';
import { idFromSeed } from '../../../domain/platform/ids';
import { releaseClaim } from '../../../db/repositories/card-tokens.repository';
import { completeSetup, releaseSetupClaim } from '../../../db/repositories/checkout-sessions.repository';
import { claimSetupCheckout, isSetupCheckout } from '../checkout-sessions/checkout-setup.service';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Static } from '@sinclair/typebox';
import { CheckoutSessionSchema, MerchantSchema, type CardToken, type CheckoutSession } from '../../../db/entities';
import { refuseAfterRepeatedDeclines, reserveDecline } from '../../http/browser-limits';
import { noticeVerificationsPaused } from './verification-breaker.service';
import type { AppDeps } from '../../deps';
import type { ApiKeyAuth } from '../../http/auth';
import { errors } from '../../../domain/platform/errors';
import { effectiveInstrumentStatus } from '../../../domain/payment-instruments/payment-instruments.presenter';
import { enrolToken, findSameCard, requireMerchantCustomer } from '../payment-instruments/payment-instruments.service';
import { consumeToken, lockUsableToken, sweepExpiredTokens } from '../tokens/tokens.service';
import { planVerification } from './card-verification.service';
import { cardVerificationWorkflowId, runCardVerification } from '../../temporal/transactions';
import type { EnrollBody } from './browser-sessions.schema';
import { requireBrowserSession } from './browser-sessions.service';
import {
  enrolmentTokenCustomer,
  enrolmentTokenRequired,
  spendEnrolmentToken,
} from '../tokens/enrolment-tokens.service';

type EnrolInput = Static<typeof EnrollBody>;

export interface EnrolResult {
  verified: boolean;
  paymentInstrumentId: string | null;
  /** The instrument's status when verified; otherwise `declined` (the issuer said no) or `failed` (no answer). */
  status: string;
  brand: string;
  last4: string;
  expMonth: number;
  expYear: number;
  /** null when verified; otherwise the normalised outcome (soft_decline, hard_decline, processing_error, network_error). */
  reason: string | null;
}

/**
 * A session opened for a checkout enrols cards for that checkout's customer only: the public key and the session
 * are in the buyer's hands, so a customerId from the browser must not attach a card to another customer. (A
 * session without a checkout needs an enrolment token, which names the customer.)
 */
function checkoutCustomer(checkout: CheckoutSession | null, requested: string | undefined): string | undefined {
  if (!checkout) return undefined;
  if (!checkout.customerId)
    throw errors.invalidValue('customerId', 'the checkout session has no customer yet; set it on the checkout first');
  if (requested !== undefined && requested !== checkout.customerId)
    throw errors.invalidValue('customerId', "must be the checkout session's own customer");
  return checkout.customerId;
}

/** An enrolment token names its customer; a customerId from the browser may only repeat it. */
function tokenCustomer(minted: string, requested: string | undefined): string {
  if (requested !== undefined && requested !== minted)
    throw errors.invalidValue('customerId', 'must be the customer the enrolment token was minted for');
  return minted;
}

const describe = (token: CardToken) => ({
  brand: token.cardBrand,
  last4: token.last4,
  expMonth: token.expMonth,
  expYear: token.expYear,
});

export async function enrolInSession(
  em: EntityManager,
  deps: AppDeps,
  auth: ApiKeyAuth,
  sessionId: string,
  input: EnrolInput,
  now: Date,
  clientIp: string,
): Promise<EnrolResult> {
  const session = await requireBrowserSession(em, auth, sessionId, now);
  const client = { keyId: auth.keyId, ip: clientIp, sessionId: session.id };
  await refuseAfterRepeatedDeclines(em, client, now.getTime());
  const { merchantId } = session;
  const checkout = session.checkoutSessionId
    ? await em.findOneOrFail(CheckoutSessionSchema, { id: session.checkoutSessionId })
    : null;

  const claimedBy = cardVerificationWorkflowId(input.tokenId);
  const setup = isSetupCheckout(checkout) ? checkout : null;
  // Without a checkout, the customer is the one the merchant's server minted the enrolment token for.
  const enrolmentToken = checkout ? undefined : input.enrolmentToken;
  if (!checkout && enrolmentToken === undefined) throw enrolmentTokenRequired();
  const customerId =
    enrolmentToken === undefined
      ? checkoutCustomer(checkout, input.customerId)
      : tokenCustomer(await enrolmentTokenCustomer(em, merchantId, enrolmentToken, claimedBy, now), input.customerId);
  if (!customerId) throw errors.invalidValue('customerId', 'the browser session has no customer to enrol for');
  await requireMerchantCustomer(em, merchantId, customerId, 'customerId');
  const currency = input.currency ?? checkout?.selectedCurrency ?? undefined;
  if (!currency)
    throw errors.validation({
      currency: ['is required: the browser session has no checkout currency to fall back to'],
    });
  const merchant = await em.findOneOrFail(MerchantSchema, { id: merchantId });
  const country = input.country ?? merchant.address?.country ?? null;

  await sweepExpiredTokens(em, now);
  const tokenRef = {
    merchantId,
    tokenId: input.tokenId,
    field: 'tokenId',
    purpose: 'instrument_enrollment' as const,
    browserSessionId: session.id,
  };
  const enrolment = { organizationId: session.organizationId, merchantId, customerId };

  type Claim = { done: EnrolResult } | { done?: undefined; token: CardToken; connectorIds: string[] };
  const claim = await em.transactional(async (tx): Promise<Claim> => {
    const token = await lockUsableToken(tx, tokenRef, now);
    if (token.usedBy !== null) throw tokenInUse(token.id);
    if (enrolmentToken !== undefined) await spendEnrolmentToken(tx, merchantId, enrolmentToken, claimedBy, now);
    // Planned first, so a bad connectorId (or no route at all) is reported whatever the card.
    const connectorIds = await planVerification(tx, merchantId, {
      connectorId: input.connectorId,
      token,
      currency,
      country,
      production: deps.config.env === 'production',
    });
    // A setup checkout takes one card: claimed before any provider sees this one (409 while another is verified).
    if (setup) await claimSetupCheckout(tx, setup.id, claimedBy);
    // The same card, already saved and usable for this customer: it was verified when it was saved.
    const existing = await findSameCard(tx, merchantId, customerId, token.fingerprint);
    if (existing && effectiveInstrumentStatus(existing, now) === 'active') {
      const { instrument } = await enrolToken(tx, token, enrolment, now);
      if (setup) await completeSetup(tx, setup.id, claimedBy, instrument.id);
      return { done: verified(instrument.id, token) };
    }
    token.usedBy = claimedBy;
    await tx.flush();
    return { token, connectorIds };
  });
  if (claim.done) return claim.done;
  const claimedToken = claim.token;
  /** Gives back what the claim took when no verification answer came: the token, and a setup checkout. */
  const releaseClaims = async () => {
    await releaseClaim(em, claimedToken.id, claimedBy);
    if (setup) await releaseSetupClaim(em, setup.id, claimedBy);
  };

  // Counted as a decline before the provider sees the card; given back below unless it is declined.
  let reservation: Awaited<ReturnType<typeof reserveDecline>>;
  try {
    const source = { ...client, checkoutId: checkout?.id, cardFingerprint: claim.token.fingerprint, newCard: true };
    reservation = await reserveDecline(em, source, (windowEndsAt) =>
      noticeVerificationsPaused(em, session, auth.keyId, windowEndsAt),
    );
  } catch (error) {
    await releaseClaims();
    throw error;
  }
  let result: Awaited<ReturnType<typeof runCardVerification>>;
  try {
    result = await runCardVerification(
      deps.temporal.client,
      { merchantId, tokenId: claim.token.id, connectorIds: claim.connectorIds, currency },
      deps.config.workflowWaitMs,
    );
  } catch (error) {
    await releaseClaims();
    throw error;
  }

  const declined = result.outcome === 'soft_decline' || result.outcome === 'hard_decline';
  if (!declined) await reservation.release();
  return em.transactional(async (tx) => {
    const token = await lockUsableToken(tx, tokenRef, now);
    if (token.usedBy !== claimedBy) throw tokenInUse(token.id);
    // The verification is recorded as a card_setup order (Document 3), whatever its outcome.
    const order = { ...enrolment, id: idFromSeed('ord', `card-setup:${token.id}`), currency };
    await recordCardSetupOrder(
      tx,
      { ...order, checkoutSessionId: checkout?.id ?? null },
      result.outcome === 'approved' ? 'authorized' : 'failed',
    );
    if (result.outcome === 'approved') {
      const { instrument } = await enrolToken(
        tx,
        token,
        {
          ...enrolment,
          verification: { networkTransactionId: result.networkTransactionId, connectorId: result.connectorId },
        },
        now,
      );
      if (setup) await completeSetup(tx, setup.id, claimedBy, instrument.id);
      return verified(instrument.id, token);
    }
    // A card not saved leaves a setup checkout open: the buyer may try another card.
    if (setup) await releaseSetupClaim(tx, setup.id, claimedBy);
    await consumeToken(tx, token, null, now);
    return {
      verified: false,
      paymentInstrumentId: null,
      status: declined ? 'declined' : 'failed',
      ...describe(token),
      reason: result.outcome,
    };
  });
}

const verified = (paymentInstrumentId: string, token: CardToken): EnrolResult => ({
  verified: true,
  paymentInstrumentId,
  status: 'active',
  ...describe(token),
  reason: null,
});

const tokenInUse = (tokenId: string) =>
  errors.conflict('TOKEN_ALREADY_USED', 'This card token has already been used; tokenize the card again', {
    tokenId,
  });
