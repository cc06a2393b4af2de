/**
 * Browser sessions: what a public key may do. A session belongs to one merchant (the key's, or for an
 * organization public key the merchant of the checkout session it names), lives 30 minutes, is refreshed
 * by the SDK while the buyer is on the page, and never outlives 24 hours from its creation.
 */
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Static } from '@sinclair/typebox';
import {
  BrowserSessionSchema,
  CheckoutSessionSchema,
  MerchantSchema,
  type BrowserSession,
  type CheckoutSession,
  type Merchant,
} from '../../../db/entities';
import type { ApiKeyAuth } from '../../http/auth';
import { errors } from '../../../domain/platform/errors';
import { requireActiveMerchant } from '../../http/auth';
import { effectiveStatus } from '../checkout-sessions/checkout-status.rules';
import { newId } from '../../../domain/platform/ids';
import type { CreateBrowserSessionBody } from './browser-sessions.schema';

export const SESSION_TTL_MS = 30 * 60 * 1000;
export const SESSION_MAX_AGE_MS = 24 * 60 * 60 * 1000;
/** The header naming the browser session on GET /sessions/checkout and POST /tokens. */
export const SESSION_HEADER = 'X-Session-Id';

type CreateInput = Static<typeof CreateBrowserSessionBody>;

const nextExpiry = (session: { createdAt: Date }, now: Date) =>
  new Date(Math.min(now.getTime() + SESSION_TTL_MS, session.createdAt.getTime() + SESSION_MAX_AGE_MS));

export function sessionExpired(session: BrowserSession, now: Date): boolean {
  return session.expiresAt.getTime() <= now.getTime();
}

const expiredError = () =>
  errors.businessRule(
    'BROWSER_SESSION_EXPIRED',
    'The browser session has expired; create a new one with POST /sessions',
  );

/** A checkout the key may see: its own merchant's, or for an organization key any of the organization's merchants'. */
async function visibleCheckout(
  em: EntityManager,
  auth: ApiKeyAuth,
  checkoutSessionId: string,
): Promise<CheckoutSession | null> {
  const checkout = await em.findOne(CheckoutSessionSchema, { id: checkoutSessionId });
  if (!checkout) return null;
  if (auth.merchantId) return checkout.merchantId === auth.merchantId ? checkout : null;
  const owned = await em.count(MerchantSchema, { id: checkout.merchantId, organizationId: auth.organizationId });
  return owned > 0 ? checkout : null;
}

/**
 * A checkout link is not a lasting read capability for its customer's data: an hour after the checkout
 * ended (completed, expired, abandoned), no new browser session opens on it. Within the hour the hosted page can still
 * show its receipt.
 */
export const CLOSED_CHECKOUT_GRACE_MS = 60 * 60 * 1000;

function refuseLongClosedCheckout(checkout: CheckoutSession, now: Date): void {
  const status = effectiveStatus(checkout, now);
  const endedAt =
    status === 'completed'
      ? (checkout.completedAt ?? checkout.updatedAt)
      : status === 'expired' && checkout.status !== 'expired'
        ? (checkout.expiresAt as Date)
        : status === 'expired' || status === 'abandoned'
          ? checkout.updatedAt
          : null;
  if (endedAt && now.getTime() - endedAt.getTime() > CLOSED_CHECKOUT_GRACE_MS) {
    throw errors.businessRule('CHECKOUT_SESSION_CLOSED', `The checkout session is ${status}; start a new checkout`);
  }
}

export async function createBrowserSession(
  em: EntityManager,
  auth: ApiKeyAuth,
  input: CreateInput,
  now: Date,
): Promise<BrowserSession> {
  let checkout: CheckoutSession | null = null;
  if (input.checkoutSessionId !== undefined) {
    checkout = await visibleCheckout(em, auth, input.checkoutSessionId);
    if (!checkout) throw errors.invalidValue('checkoutSessionId', 'no such checkout session for this merchant');
    refuseLongClosedCheckout(checkout, now);
  }
  const merchantId = auth.merchantId ?? checkout?.merchantId;
  if (!merchantId) {
    throw errors.forbidden(
      'An organization public key must name the checkout session (checkoutSessionId), which names the merchant',
    );
  }
  // A merchant public key was checked by the route runner; an organization key's merchant is known only now.
  await requireActiveMerchant(em, merchantId);
  const session = em.create(BrowserSessionSchema, {
    id: newId('bs'),
    organizationId: auth.organizationId,
    merchantId,
    apiKeyId: auth.keyId,
    checkoutSessionId: checkout?.id ?? null,
    sdkVersion: input.sdkVersion ?? null,
    metadata: input.metadata ?? null,
    createdAt: now,
    expiresAt: new Date(now.getTime() + SESSION_TTL_MS),
  } as BrowserSession);
  await em.flush();
  return session;
}

/**
 * The session a public key names, or 404 when it doesn't exist or isn't the key's (another organization, or
 * another merchant for a merchant key). An expired session is 422 unless `allowExpired`.
 */
export async function requireBrowserSession(
  em: EntityManager,
  auth: ApiKeyAuth,
  sessionId: string,
  now: Date,
  options: { lock?: boolean } = {},
): Promise<BrowserSession> {
  const session = await findOwnSession(em, auth, sessionId, options.lock);
  if (!session) throw errors.notFound('No such browser session');
  if (sessionExpired(session, now)) throw expiredError();
  return session;
}

async function findOwnSession(
  em: EntityManager,
  auth: ApiKeyAuth,
  sessionId: string,
  lock = false,
): Promise<BrowserSession | null> {
  const session = await em.findOne(
    BrowserSessionSchema,
    { id: sessionId },
    lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {},
  );
  if (!session || session.organizationId !== auth.organizationId) return null;
  if (auth.merchantId && session.merchantId !== auth.merchantId) return null;
  // A session opened before its merchant was suspended takes no more tokens, enrolments or payments.
  await requireActiveMerchant(em, session.merchantId);
  return session;
}

/** The session named by the X-Session-Id header (400 when missing or not the key's, 422 when expired). */
export async function sessionFromHeader(
  em: EntityManager,
  auth: ApiKeyAuth,
  header: string | undefined,
  now: Date,
): Promise<BrowserSession> {
  if (!header)
    throw errors.validation({ [SESSION_HEADER]: ['is required: the browser session id from POST /sessions'] });
  const session = /^bs_[0-9A-Za-z]{1,60}$/.test(header) ? await findOwnSession(em, auth, header) : null;
  if (!session) throw errors.invalidValue(SESSION_HEADER, 'no such browser session for this key');
  if (sessionExpired(session, now)) throw expiredError();
  return session;
}

export async function refreshBrowserSession(
  em: EntityManager,
  auth: ApiKeyAuth,
  sessionId: string,
  now: Date,
): Promise<BrowserSession> {
  const session = await requireBrowserSession(em, auth, sessionId, now, { lock: true });
  session.expiresAt = nextExpiry(session, now);
  await em.flush();
  return session;
}

export async function sessionMerchant(em: EntityManager, session: BrowserSession): Promise<Merchant> {
  return em.findOneOrFail(MerchantSchema, { id: session.merchantId });
}
