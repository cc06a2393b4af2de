/**
 * POST /api/v1/webhooks/inbound/:connector_id?token=… — provider webhooks. A @koa/router route mounted ahead of the
 * JSON body parser (api/app.ts) because the signature covers the exact raw bytes; everything else is
 * domain/provider-webhooks/provider-webhooks.receive.ts. Here: the raw body, the refusal budgets per client address
 * and per connector (api/http/refusal-budgets.ts), and the Temporal signals the delivery asks for.
 * A connector id of another shape is not this route's: the request goes on (and ends as the API's 404).
 */
import Router from '@koa/router';
import type Koa from 'koa';
import type { AppDeps } from '../../deps';
import { ApiError } from '../../../domain/platform/errors';
import { receiveProviderWebhook } from '../../../domain/provider-webhooks/provider-webhooks.receive';
import { signalProviderEvent, wakeTransactionResolution } from '../../temporal/provider-webhooks';
import { addressBucket } from '../../http/client-address';
import { inboundWebhookLimitsOf } from '../../http/refusal-budgets';

const CONNECTOR_ID = /^[A-Za-z0-9_]{1,64}$/;

async function readRaw(ctx: Koa.Context, limit: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req) {
    size += (chunk as Buffer).length;
    if (size > limit)
      throw new ApiError(413, 'bad_request_error', 'PAYLOAD_TOO_LARGE', 'The webhook body is too large');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export function providerWebhookRoutes(deps: AppDeps): Koa.Middleware {
  // Case-sensitive and without a trailing slash: the path exactly as connectors' webhook_url spells it.
  const router = new Router({ sensitive: true, strict: true });
  router.post('/api/v1/webhooks/inbound/:connector_id', async (ctx, next) => {
    const connectorId = ctx.params.connector_id;
    if (!CONNECTOR_ID.test(connectorId)) return next() as Promise<void>;
    const limits = inboundWebhookLimitsOf(deps);
    const rawBody = await readRaw(ctx, deps.config.bodyLimitBytes);
    const headers = Object.fromEntries(
      Object.entries(ctx.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(',') : v]),
    );
    const answer = await receiveProviderWebhook(
      { em: deps.orm.em.fork(), logger: deps.logger, encryptionKeys: deps.config.encryptionKeys },
      { connectorId, token: typeof ctx.query.token === 'string' ? ctx.query.token : '', headers, rawBody },
      {
        spendAddressBudget: () => limits.perAddress.spend(addressBucket(ctx.ip)),
        spendConnectorBudget: (id) => limits.perConnector.spend(id),
        signalSettlement: (transactionId, signal) => signalProviderEvent(deps.temporal.client, transactionId, signal),
      },
    );
    const wake = answer.wakeResolutionOf;
    if (wake) {
      // Only sooner: the verdict is committed, and the resolution reads it at its next lookup anyway.
      await wakeTransactionResolution(deps.temporal.client, wake).catch((error: unknown) =>
        deps.logger.warn({ err: error, transactionId: wake }, 'could not wake a charge resolution'),
      );
    }
    ctx.status = 200;
    ctx.body = answer.body;
  });
  return router.routes() as unknown as Koa.Middleware;
}
