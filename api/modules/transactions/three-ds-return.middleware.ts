/**
 * GET or POST /api/v1/transactions/:transaction_id/three-ds/return: where the provider sends the buyer's browser
 * after a 3-D Secure challenge (providers return by GET or by a form POST). It tells the charge's wait to ask the
 * provider now, waits briefly for the verdict, then redirects (303) to the charge's return_url with
 * ?transaction_id=…, or shows a plain page when there is none. No key: a browser arrives here. It reveals nothing
 * and decides nothing — the provider's read decides — and a return after the deadline changes nothing.
 */
import type Koa from 'koa';
import { TransactionSchema } from '../../../db/entities';
import type { AppDeps } from '../../deps';
import { returnFromAuthentication } from '../../temporal';
import { renewalAuthentication } from '../renewal-authentication/renewal-authentication.middleware';

export const THREE_DS_RETURN_PATH = /^\/api\/v1\/transactions\/(tx_[A-Za-z0-9]{1,64})\/three-ds\/return$/;

const page = (ctx: Koa.Context, status: number, text: string) => {
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.set('cache-control', 'no-store');
  ctx.body = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Payment</title></head><body><p>${text}</p></body></html>`;
};

export function threeDsReturn(deps: AppDeps): Koa.Middleware {
  return async (ctx, next) => {
    // A renewal's authentication link starts the customer's 3-D Secure: the same browser pages, one mount.
    if (await renewalAuthentication(deps, ctx)) return;
    const match = ctx.method === 'GET' || ctx.method === 'POST' ? THREE_DS_RETURN_PATH.exec(ctx.path) : null;
    if (!match) return next() as Promise<void>;
    const transactionId = match[1];
    const tx = await deps.orm.em
      .fork()
      .findOne(TransactionSchema, { id: transactionId }, { fields: ['id', 'returnUrl'] });
    if (!tx) return page(ctx, 404, 'No such payment.');
    try {
      await returnFromAuthentication(deps.temporal.client, transactionId, deps.config.workflowWaitMs);
    } catch (error) {
      // The buyer is sent on regardless: the charge's wait still asks the provider on its own timer.
      deps.logger.warn({ err: error, transactionId }, 'could not tell the charge that the buyer returned');
    }
    if (!tx.returnUrl) return page(ctx, 200, 'Authentication finished. You can close this window.');
    const back = new URL(tx.returnUrl);
    back.searchParams.set('transaction_id', transactionId);
    ctx.status = 303;
    ctx.redirect(back.toString());
  };
}
