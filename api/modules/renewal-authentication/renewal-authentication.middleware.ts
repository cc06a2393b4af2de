/**
 * GET|POST /api/v1/renewal-authentication?token=…: the hosted page of a renewal the issuer takes only with the
 * customer present (payment_method.action_required, reason authentication_required; the customer is e-mailed the
 * link). GET shows a confirm button and starts nothing, so a mail scanner that opens links cannot use up the
 * single-use link; POST asks the subscription's workflow to start the customer's on-session charge of the renewal
 * and redirects (303) to its 3-D Secure challenge. No key: a browser arrives here; the sealed token is the only
 * credential, and it names one subscription. Pages are fixed text (nothing the request sent is echoed), never
 * cached, and send no Referer (the token is in the URL).
 */
import type Koa from 'koa';
import { ApiError } from '../../../domain/platform/errors';
import { SubscriptionSchema } from '../../../db/entities';
import {
  customerChargeOf,
  readAuthenticationToken,
  RENEWAL_AUTHENTICATION_PATH,
} from '../../../domain/subscriptions/subscriptions.authentication';
import type { AppDeps } from '../../deps';
import { authenticateRenewal } from '../../temporal/subscriptions';
import { awaitTransaction } from '../../temporal/transactions';

const page = (ctx: Koa.Context, status: number, body: string) => {
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.set('cache-control', 'no-store');
  ctx.set('referrer-policy', 'no-referrer');
  ctx.body = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Subscription payment</title></head><body>${body}</body></html>`;
};
const text = (ctx: Koa.Context, status: number, message: string) => page(ctx, status, `<p>${message}</p>`);

const CONFIRM =
  '<p>Your bank asks you to confirm this subscription payment.</p>' +
  '<form method="post"><button type="submit">Confirm the payment</button></form>';

/** Whether this request is the renewal authentication page; answers it when it is. */
export async function renewalAuthentication(deps: AppDeps, ctx: Koa.Context): Promise<boolean> {
  if (ctx.path !== RENEWAL_AUTHENTICATION_PATH || (ctx.method !== 'GET' && ctx.method !== 'POST')) return false;
  const token = typeof ctx.query.token === 'string' ? ctx.query.token : '';
  const link = readAuthenticationToken(deps.config.encryptionKeys, token);
  const em = deps.orm.em.fork();
  const sub = link && (await em.findOne(SubscriptionSchema, { id: link.subscriptionId }, { fields: ['merchantId'] }));
  if (!link || !sub) {
    text(ctx, 404, 'This link is not valid.');
    return true;
  }
  if (ctx.method === 'GET') {
    page(ctx, 200, CONFIRM);
    return true;
  }
  const waitMs = deps.config.workflowWaitMs;
  try {
    const { transactionId } = await authenticateRenewal(deps.temporal.client, link.subscriptionId, link.linkId, waitMs);
    await awaitTransaction(deps.temporal.client, transactionId, waitMs);
    const charge = await customerChargeOf(em, sub.merchantId, transactionId);
    if (charge?.nextAction) {
      ctx.status = 303;
      ctx.redirect(charge.nextAction.url);
    } else if (charge?.status === 'authorized') text(ctx, 200, 'Thank you: the payment is complete.');
    else text(ctx, 200, 'The payment could not be completed. Your subscription stays as it is.');
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    if (error.status === 410)
      text(ctx, 410, 'This link can no longer be used: it was used, it expired, or the payment was made.');
    else text(ctx, 503, 'The payment is still being prepared. Try the link again in a minute.');
  }
  return true;
}
