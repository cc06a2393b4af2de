/**
 * GET or POST /api/v1/transactions/:transaction_id/three-ds/return: where the provider sends the buyer's browser
 * after a 3-D Secure challenge (providers return by GET or by a form POST). It tells the charge's wait to ask the
 * provider now, handing it the parameters the provider sent the browser back with (Adyen's redirectResult, which
 * only Adyen's /payments/details can turn into a verdict), waits briefly for the verdict, then redirects (303) to
 * the charge's return_url with ?transaction_id=…, or shows a plain page when there is none. No key: a browser
 * arrives here. It reveals nothing and decides nothing — the provider decides — and a return after the deadline
 * changes nothing. api/app.ts mounts it on these paths and a renewal's authentication link, before the JSON body
 * parser.
 */
import type Koa from 'koa';
import { TransactionSchema } from '../../../db/entities';
import type { AppDeps } from '../../deps';
import { returnFromAuthentication } from '../../temporal/transactions';
import { renewalAuthentication } from '../renewal-authentication/renewal-authentication.middleware';

const THREE_DS_RETURN_PATH = /^\/api\/v1\/transactions\/(tx_[A-Za-z0-9]{1,64})\/three-ds\/return$/;

/**
 * The return parameters are kept in the wait's workflow history, so they are bounded: a few fields with plain
 * names, each value short enough for Adyen's redirectResult, read from a form body no larger than `bodyBytes`.
 */
export const RETURN_PARAM_LIMITS = { entries: 8, keyChars: 64, valueChars: 4096, bodyBytes: 64 * 1024 } as const;
const PARAM_NAME = new RegExp(`^[A-Za-z][A-Za-z0-9_.-]{0,${RETURN_PARAM_LIMITS.keyChars - 1}}$`);
/** Twelve digits or more in a row (spaces and dashes aside) could be a card number: such a value is never kept. */
const CARD_LIKE = /\d{12,}/;

/**
 * The provider's return parameters: the query's, then the form body's (which win), one string per name; a repeated
 * name, an odd name, an over-long value or one that could hold a card number is dropped, and fields past the
 * limit are ignored.
 */
export function returnParamsOf(query: Record<string, unknown>, form: URLSearchParams | null): Record<string, string> {
  const kept: Record<string, string> = {};
  const take = (name: string, value: unknown) => {
    if (typeof value !== 'string' || !PARAM_NAME.test(name) || value.length > RETURN_PARAM_LIMITS.valueChars) return;
    if (CARD_LIKE.test(value.replace(/[\s-]/g, ''))) return;
    if (name in kept || Object.keys(kept).length < RETURN_PARAM_LIMITS.entries) kept[name] = value;
  };
  for (const [name, value] of Object.entries(query)) take(name, value);
  if (form) {
    const seen = new Set<string>();
    for (const name of form.keys()) {
      if (seen.has(name)) continue;
      seen.add(name);
      const values = form.getAll(name);
      take(name, values.length === 1 ? values[0] : values);
    }
  }
  return kept;
}

/** A form POST's fields; null for any other body, or one over the size limit (the return is still signalled). */
async function formOf(ctx: Koa.Context): Promise<URLSearchParams | null> {
  if (ctx.method !== 'POST' || !ctx.is('application/x-www-form-urlencoded')) return null;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > RETURN_PARAM_LIMITS.bodyBytes) return null;
    chunks.push(chunk);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

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
    const returnParams = returnParamsOf(ctx.query, await formOf(ctx));
    try {
      await returnFromAuthentication(deps.temporal.client, transactionId, deps.config.workflowWaitMs, returnParams);
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
