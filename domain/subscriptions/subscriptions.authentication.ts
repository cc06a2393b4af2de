/**
 * The hosted link that asks a customer to authenticate a renewal the issuer would not take merchant-initiated
 * (authentication_required). The token names the subscription and the link (one per such decline) and is sealed
 * with an HMAC of the deployment's master key, so it cannot be forged or moved to another subscription; whether it
 * may still start a charge (unused, the renewal still open, not expired) is the subscription workflow's to judge.
 * Both sides use it: the worker writes the link into the event and the e-mail, the API reads it back.
 */
import { createHmac } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { TransactionAttemptSchema, TransactionSchema } from '../../db/entities';
import { constantTimeEqual, type KeyMaterial } from '../platform/crypto';
import { nextActionOf, type NextAction } from '../../workflows/lib/three-ds';

/** Where the customer's browser opens the link (no key: a browser). */
export const RENEWAL_AUTHENTICATION_PATH = '/api/v1/renewal-authentication';

/** The mail outbox's kind of the message carrying the link. */
export const RENEWAL_AUTHENTICATION_MAIL = 'renewal_authentication';

const ID = /^[a-z]{2,4}_[A-Za-z0-9]{1,64}$/;

const seal = (keys: KeyMaterial, body: string) =>
  createHmac('sha256', Buffer.isBuffer(keys) ? keys : keys.current)
    .update(`renewal-authentication:${body}`)
    .digest('base64url');

export function authenticationToken(keys: KeyMaterial, subscriptionId: string, linkId: string): string {
  const body = `${subscriptionId}.${linkId}`;
  return `${body}.${seal(keys, body)}`;
}

/** The subscription and link a token names, or null when it is not one this deployment sealed. */
export function readAuthenticationToken(
  keys: KeyMaterial,
  token: string,
): { subscriptionId: string; linkId: string } | null {
  const [subscriptionId, linkId, mac, ...rest] = token.split('.');
  if (rest.length || !mac || !ID.test(subscriptionId) || !ID.test(linkId)) return null;
  const body = `${subscriptionId}.${linkId}`;
  return constantTimeEqual(mac, seal(keys, body)) ? { subscriptionId, linkId } : null;
}

/** What the worker needs to issue links: where the API is reached, and the keys that seal tokens and mail. */
export interface RenewalLinkSettings {
  publicBaseUrl: string;
  keys: KeyMaterial;
}

export const authenticationUrl = (publicBaseUrl: string, token: string) =>
  `${publicBaseUrl.replace(/\/+$/, '')}${RENEWAL_AUTHENTICATION_PATH}?token=${encodeURIComponent(token)}`;

/** The customer's charge as it stands: its status, and the challenge it waits for (null when none). */
export async function customerChargeOf(
  em: EntityManager,
  merchantId: string,
  transactionId: string,
): Promise<{ status: string; nextAction: NextAction | null } | null> {
  const tx = await em.findOne(TransactionSchema, { id: transactionId, merchantId }, { fields: ['status'] });
  if (!tx) return null;
  const [last] = await em.find(
    TransactionAttemptSchema,
    { transactionId },
    { orderBy: { attemptNumber: 'desc' }, limit: 1, fields: ['threeDs'] },
  );
  return { status: tx.status, nextAction: tx.status === 'pending' ? nextActionOf(last?.threeDs) : null };
}
