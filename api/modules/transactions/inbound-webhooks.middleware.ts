/**
 * POST /api/v1/webhooks/inbound/:connector_id?token=… — provider webhooks. Mounted as plain Koa middleware
 * ahead of the JSON body parser (api/app.ts) because the signature covers the exact raw bytes.
 *
 * The connector is found by id + token (constant-time), the signature checked with its webhook secret by its
 * adapter, and the provider event recorded in provider_webhook_events (unique per connector and provider event
 * id) in the same database transaction as its effect: a duplicate delivery finds the row and changes nothing.
 * pix/boleto verdicts are signalled to the transaction's settlement workflow; a card payment's verdict kept on an
 * attempt whose outcome stayed unknown wakes the charge's resolution (after the commit); refund results and disputes
 * move the transaction here through domain/transactions/transactions.transitions.ts (the same code the workflows use). Unhandled event types → 200.
 *
 * A connector's webhook acts only on that connector's own payments and refunds (a leaked token or secret of one
 * connector must not settle another's), an inactive connector's webhooks are refused (the provider retries them
 * once it is active again), and a payment.succeeded for another amount than the charge's is recorded, not applied.
 */
import { randomUUID } from 'node:crypto';
import type Koa from 'koa';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { AppDeps } from '../../deps';
import { RefundSchema, TransactionSchema, type Refund, type Transaction } from '../../../db/entities';
import { adapterFor } from '../../../domain/connectors/registry';
import { InvalidWebhookError, type InboundWebhook } from '../../../domain/connectors/connector';
import { UnhandledWebhookEventError } from '../../../domain/connectors/errors';
import { announceRefundsSettledDuringDispute, settleRefund } from '../../../domain/transactions/transactions.refunds';
import { signalProviderEvent, wakeTransactionResolution } from '../../temporal';
import { ApiError } from '../../../domain/platform/errors';
import { findConnectorByWebhookToken, loadConnectorSecrets } from '../../../domain/connectors/connectors.secrets';
import { recordEvent } from '../../../domain/events/events.outbox';
import { recordActivity } from '../../../domain/merchants/merchants.activity';
import { applyTransactionMove } from '../../../domain/transactions/transactions.transitions';
import { canApply } from '../../../domain/transactions/transactions.state-table';
import { recordWebhookVerdictOnUnansweredAttempt } from '../../../domain/transactions/transactions.attempt-verdicts';
import { recordWebhookDecline } from '../../../domain/transactions/transactions.late-declines';
import { presentTransactionHeader } from '../../../domain/transactions/transactions.presenter';
import { keepOperationVerdict } from '../../../domain/transactions/transactions.operation-writes';
import { MerchantConnectorSchema } from '../../../db/entities';
import { recordReceipt, type ReceiptInput } from '../../../db/repositories/provider-webhook-receipts.repository';
import { handOverLatePayment, keepGiveBackVerdict } from '../../../db/repositories/transaction-attempts.repository';
import { UNPAID_ENDS } from '../../../domain/transactions/transactions.state-table';
import { UNRESOLVED_PROVIDER_CALL } from '../../../workflows/lib/transaction-types';
import { addressBucket } from '../../http/client-address';
import { inboundWebhookLimitsOf } from '../../http/inbound-webhook-limits';

const PATH = /^\/api\/v1\/webhooks\/inbound\/([A-Za-z0-9_]{1,64})$/;

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

async function findTransaction(
  em: EntityManager,
  connectorId: string,
  merchantId: string,
  event: InboundWebhook,
): Promise<Transaction | null> {
  const byRef = await em.findOne(TransactionSchema, {
    merchantId,
    connectorId,
    providerReference: event.providerReference,
  });
  if (byRef) return byRef;
  return event.reference?.startsWith('tx_')
    ? em.findOne(TransactionSchema, { id: event.reference, merchantId, connectorId })
    : null;
}

/** The refund the event names, only if it belongs to a transaction charged through this connector. */
async function findRefund(
  em: EntityManager,
  connectorId: string,
  merchantId: string,
  event: InboundWebhook,
): Promise<Refund | null> {
  const refund =
    (event.reference?.startsWith('ref_')
      ? await em.findOne(RefundSchema, { id: event.reference, merchantId })
      : null) ?? (await em.findOne(RefundSchema, { merchantId, providerReference: event.providerReference }));
  if (!refund) return null;
  const charged = await em.count(TransactionSchema, { id: refund.transactionId, merchantId, connectorId });
  return charged > 0 ? refund : null;
}

/** Why an authentic event was recorded but not applied; null when it was applied (or named nothing of ours). */
type Refusal = 'AMOUNT_MISMATCH' | null;

/**
 * A payment.succeeded for another amount than the charge's is not applied (the charge stays pending and expires
 * unless the right amount arrives): settling it would mark as paid an order the customer under- or overpaid. It is
 * recorded on the event row and in the merchant's activity log for someone to reconcile with the provider.
 */
async function refuseAmountMismatch(
  em: EntityManager,
  connectorId: string,
  tx: Transaction,
  event: InboundWebhook,
): Promise<Refusal> {
  await em.execute(
    `update provider_webhook_events set transaction_id = ? where connector_id = ? and provider_event_id = ?`,
    [tx.id, connectorId, event.eventId],
  );
  recordActivity(em, {
    organizationId: tx.organizationId,
    merchantId: tx.merchantId,
    action: 'transaction.provider_amount_mismatch',
    actor: { type: 'system', id: null },
    changes: {
      transaction_id: tx.id,
      connector_id: connectorId,
      provider_event_id: event.eventId,
      event_type: event.type,
      expected_amount: tx.amount,
      received_amount: event.amount,
      currency: tx.currency,
    },
  });
  await em.flush();
  return 'AMOUNT_MISMATCH';
}

async function apply(
  em: EntityManager,
  deps: AppDeps,
  connectorId: string,
  merchantId: string,
  event: InboundWebhook,
): Promise<Refusal> {
  if (event.type === 'refund.succeeded' || event.type === 'refund.failed') {
    const refund = await findRefund(em, connectorId, merchantId, event);
    const result = event.type === 'refund.succeeded' ? 'succeeded' : 'failed';
    if (refund) await settleRefund(em, refund.id, result, event.providerReference, null, 'psp_webhook');
    // Not a merchant's refund: it may be the reconciler's give-back of a charge, which it follows until decided.
    else if (event.providerReference)
      await keepGiveBackVerdict(
        em,
        { merchantId, connectorId },
        { providerReference: event.providerReference, status: result },
        UNRESOLVED_PROVIDER_CALL,
      );
    return null;
  }
  if (event.type.startsWith('capture.') || event.type.startsWith('void.')) {
    // A capture or void decided where the provider cannot be read: kept for the operation waiting on it.
    const tx = await findTransaction(em, connectorId, merchantId, event);
    if (tx)
      await keepOperationVerdict(
        em,
        tx.id,
        event.type.startsWith('capture.') ? 'capture' : 'void',
        event.type.endsWith('.succeeded') ? 'succeeded' : 'failed',
      );
    return null;
  }
  const tx = await findTransaction(em, connectorId, merchantId, event);
  if (!tx) return null;
  if (event.type.startsWith('payment.')) {
    // A payment verdict applies only while the charge awaits one (the state table's charge moves say from where).
    if (!canApply(tx.status, 'charge_approved')) {
      if (event.type === 'payment.succeeded') await giveBackLatePayment(em, connectorId, tx, event);
      return null;
    }
    if (event.type === 'payment.succeeded' && event.amount !== null && event.amount !== tx.amount)
      return refuseAmountMismatch(em, connectorId, tx, event);
    await recordWebhookDecline(em, tx.id, event);
    const signalled = await signalProviderEvent(deps.temporal.client, tx.id, {
      type: event.type as 'payment.succeeded' | 'payment.failed' | 'payment.expired',
      eventId: event.eventId,
    });
    if (!signalled) {
      // Pending but no settlement workflow yet (the webhook raced the charge's last step): fail so the whole
      // delivery rolls back (dedup row included) and the provider retries it a moment later.
      throw new ApiError(
        503,
        'external_service_error',
        'SETTLEMENT_NOT_READY',
        'The payment is not ready for this event yet; retry',
      );
    }
    return null;
  }
  const key = `${connectorId}:${event.eventId}`;
  if (event.type === 'dispute.opened') {
    const moved = await applyTransactionMove(em, tx.id, { event: 'dispute_opened', triggeredBy: 'psp_webhook', key });
    if (moved) return null;
  }
  if (event.type === 'dispute.closed') {
    await closeDispute(em, tx, event, key);
    return null;
  }
  if (event.type === 'dispute.updated') {
    await recordEvent(em, {
      organizationId: tx.organizationId,
      merchantId: tx.merchantId,
      livemode: tx.livemode,
      type: 'transaction.dispute_updated',
      object: presentTransactionHeader(tx),
    });
  }
  return null;
}

/**
 * Money the provider took after the charge ended unpaid (a boleto compensated after its due date, a pix paid after
 * it expired): the transaction stays as it answered — its checkout was reopened, the buyer may pay again — and the
 * payment is given back by the reconciler (handOverLatePayment), the merchant's activity log saying so.
 */
async function giveBackLatePayment(
  em: EntityManager,
  connectorId: string,
  tx: Transaction,
  event: InboundWebhook,
): Promise<void> {
  if (!UNPAID_ENDS.includes(tx.status)) return;
  const key = { transactionId: tx.id, connectorId };
  if (!(await handOverLatePayment(em, key, event.providerReference, UNRESOLVED_PROVIDER_CALL))) return;
  recordActivity(em, {
    organizationId: tx.organizationId,
    merchantId: tx.merchantId,
    action: 'transaction.late_payment_given_back',
    actor: { type: 'system', id: null },
    changes: {
      transaction_id: tx.id,
      connector_id: connectorId,
      provider_event_id: event.eventId,
      provider_reference: event.providerReference,
      amount: event.amount ?? tx.amount,
      currency: tx.currency,
    },
  });
  await em.flush();
}

/**
 * A decided dispute: won gives the money back, so a charged_back transaction returns to the state before the
 * dispute (the state table's dispute_won: transaction.dispute_won is its one event); lost keeps it charged_back
 * (transaction.dispute_lost).
 * Either way transaction.dispute_closed follows; an outcome the provider does not state closes it without either.
 */
async function closeDispute(em: EntityManager, tx: Transaction, event: InboundWebhook, key: string): Promise<void> {
  const outcome = event.disputeOutcome ?? null;
  const record = async (
    type: 'transaction.dispute_won' | 'transaction.dispute_lost' | 'transaction.dispute_closed',
    current: Transaction,
  ) =>
    recordEvent(em, {
      organizationId: current.organizationId,
      merchantId: current.merchantId,
      livemode: current.livemode,
      type,
      object: presentTransactionHeader(current),
    });
  let current = tx;
  if (outcome === 'won') {
    const moved = await applyTransactionMove(em, tx.id, { event: 'dispute_won', triggeredBy: 'psp_webhook', key });
    if (moved) {
      current = moved;
      await announceRefundsSettledDuringDispute(em, moved);
    } else await record('transaction.dispute_won', tx);
  } else if (outcome === 'lost') {
    await record('transaction.dispute_lost', tx);
  }
  await record('transaction.dispute_closed', current);
}

/** What a refused delivery's InvalidWebhookError says, as a reason the Dashboard can filter on. */
const refusalReason = (error: InvalidWebhookError) =>
  /signature|authentication|hmac|secret|timestamp/i.test(error.message) ? 'bad_signature' : 'malformed_body';

/**
 * The Dashboard's log of a delivery, written in its own statement: a refused or failed delivery's own work rolls
 * back, its receipt must stay. A log that cannot be written never changes the provider's answer.
 */
async function logReceipt(deps: AppDeps, receipt: ReceiptInput): Promise<void> {
  try {
    await recordReceipt(deps.orm.em.fork(), receipt);
  } catch (error) {
    deps.logger.warn({ err: error, connectorId: receipt.connectorId }, 'could not record a provider webhook receipt');
  }
}

export function inboundWebhooks(deps: AppDeps): Koa.Middleware {
  return async (ctx, next) => {
    const match = ctx.method === 'POST' ? PATH.exec(ctx.path) : null;
    if (!match) return next() as Promise<void>;
    const limits = inboundWebhookLimitsOf(deps);
    const rawBody = await readRaw(ctx, deps.config.bodyLimitBytes);
    const token = typeof ctx.query.token === 'string' ? ctx.query.token : '';
    const em = deps.orm.em.fork();
    const connector = await findConnectorByWebhookToken(em, match[1], token);
    if (!connector) {
      // Refused deliveries spend their address's budget (past it: 429, no more lookups or receipts); a delivery with
      // the right token never meets it.
      limits.perAddress.spend(addressBucket(ctx.ip));
      // Logged only under a connector that exists (its Dashboard can show it); an unknown id is nobody's to read.
      const named = await em.findOne(MerchantConnectorSchema, { id: match[1] }, { fields: ['id'] });
      if (named) {
        // Past the connector's budget of wrong tokens: no more receipts this minute (the table and the Dashboard
        // would otherwise grow with the flood).
        limits.perConnector.spend(named.id);
        await logReceipt(deps, {
          connectorId: named.id,
          status: 'invalid',
          reason: 'unknown_connector',
          detail: 'The webhook token does not match the connector',
        });
      }
      throw new ApiError(401, 'authentication_error', 'INVALID_WEBHOOK_TOKEN', 'Unknown connector or webhook token');
    }
    // Nothing is recorded, so the provider's retries apply the event if the connector is activated again.
    if (!connector.isActive) {
      await logReceipt(deps, {
        connectorId: connector.id,
        status: 'invalid',
        reason: 'connector_inactive',
        detail: 'The connector is inactive; its webhooks are not accepted',
      });
      throw new ApiError(
        422,
        'business_rule_error',
        'CONNECTOR_INACTIVE',
        'The connector is inactive; its webhooks are not accepted',
      );
    }
    const { webhookSecret } = await loadConnectorSecrets(
      em,
      deps.config.encryptionKeys,
      connector.merchantId,
      connector.id,
    );
    let event: InboundWebhook;
    try {
      const headers = Object.fromEntries(
        Object.entries(ctx.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(',') : v]),
      );
      event = adapterFor(connector.providerSlug).parseWebhook({ headers, rawBody, webhookSecret });
    } catch (error) {
      if (error instanceof UnhandledWebhookEventError) {
        await logReceipt(deps, {
          connectorId: connector.id,
          status: 'ignored',
          reason: 'unhandled_event_type',
          eventType: error.eventType,
        });
        ctx.status = 200;
        ctx.body = { received: true, ignored: true };
        return;
      }
      if (error instanceof InvalidWebhookError) {
        limits.perAddress.spend(addressBucket(ctx.ip));
        // The adapters' messages are fixed texts (never the body, a header or the secret).
        await logReceipt(deps, {
          connectorId: connector.id,
          status: 'invalid',
          reason: refusalReason(error),
          detail: error.message,
        });
        throw new ApiError(
          401,
          'authentication_error',
          'INVALID_WEBHOOK_SIGNATURE',
          'The webhook signature or payload is invalid',
        );
      }
      throw error;
    }
    const received = {
      connectorId: connector.id,
      eventType: event.type,
      providerEventId: event.eventId,
      providerReference: event.providerReference,
    };
    let outcome: { duplicate: boolean; refused?: Refusal };
    let resolutionToWake: string | null = null;
    try {
      outcome = await em.transactional(async (tx) => {
        const inserted = await tx.execute<Array<{ id: string }>>(
          `insert into provider_webhook_events (id, connector_id, provider_event_id, event_type, provider_reference)
           values (?, ?, ?, ?, ?) on conflict (connector_id, provider_event_id) do nothing returning id`,
          [randomUUID(), connector.id, event.eventId, event.type, event.providerReference],
        );
        if (inserted.length === 0) {
          await recordReceipt(tx, { ...received, status: 'duplicate' });
          return { duplicate: true };
        }
        // A verdict on a charge attempt whose own answer was lost is kept on the attempt: the answer the charge's
        // resolution waits for (woken below, once committed), or for the reconciler once the charge has failed.
        const verdict = await recordWebhookVerdictOnUnansweredAttempt(
          tx,
          { connectorId: connector.id, merchantId: connector.merchantId },
          event,
        );
        if (verdict?.awaitsResolution) resolutionToWake = event.reference;
        const refused = verdict?.awaitsResolution
          ? null
          : await apply(tx, deps, connector.id, connector.merchantId, event);
        // In the same transaction as the effect: a receipt says processed only if the effect committed.
        await recordReceipt(
          tx,
          refused ? { ...received, status: 'ignored', reason: refused } : { ...received, status: 'processed' },
        );
        return refused ? { duplicate: false, refused } : { duplicate: false };
      });
    } catch (error) {
      await logReceipt(deps, {
        ...received,
        status: 'failed',
        reason: error instanceof ApiError ? error.code : 'INTERNAL_ERROR',
      });
      throw error;
    }
    if (resolutionToWake) {
      // Only sooner: the verdict is committed, and the resolution reads it at its next lookup anyway.
      await wakeTransactionResolution(deps.temporal.client, resolutionToWake).catch((error: unknown) =>
        deps.logger.warn({ err: error, transactionId: resolutionToWake }, 'could not wake a charge resolution'),
      );
    }
    ctx.status = 200;
    // A refused event is still acknowledged: the provider's retries would carry the same amount again.
    ctx.body = { received: true, ...outcome };
  };
}
