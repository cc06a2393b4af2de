/**
 * One delivery of a provider webhook (POST /api/v1/webhooks/inbound/:connector_id?token=…, routed by
 * api/modules/provider-webhooks/), from the raw bytes to the answer:
 * 1. the connector is found by id + token (constant-time); an inactive connector's webhooks are refused (the
 *    provider retries them once it is active again);
 * 2. the signature is checked with its webhook secret by its adapter, which maps the provider's event onto ours;
 * 3. the event is recorded in provider_webhook_events (unique per connector and provider event id) in the same
 *    database transaction as its effect (provider-webhooks.effects.ts): a duplicate delivery finds the row and
 *    changes nothing. A card payment's verdict kept on an attempt whose outcome stayed unknown is the answer the
 *    charge's resolution waits for: the caller wakes it after the commit (`wakeResolutionOf`).
 * Every delivery naming an existing connector leaves a receipt (provider_webhook_receipts), the Dashboard's log.
 * Refusals are ApiErrors (401, 422, 503); the caller's budgets may refuse with 429 before a lookup or a receipt.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { MerchantConnectorSchema } from '../../db/entities';
import { claimProviderEvent } from '../../db/repositories/provider-webhook-events.repository';
import { recordReceipt, type ReceiptInput } from '../../db/repositories/provider-webhook-receipts.repository';
import { InvalidWebhookError, type InboundWebhook, UnhandledWebhookEventError } from '../connectors/connector';
import { findConnectorByWebhookToken, loadConnectorSecrets } from '../connectors/connectors.secrets';
import { adapterFor } from '../connectors/registry';
import type { KeyMaterial } from '../platform/crypto';
import { ApiError } from '../platform/errors';
import { recordWebhookVerdictOnUnansweredAttempt } from './provider-webhooks.attempt-verdicts';
import { applyProviderEvent, type EffectScope, type Refusal } from './provider-webhooks.effects';
import { refusalReason } from './provider-webhooks.mapping';

export interface ProviderWebhookDelivery {
  connectorId: string;
  token: string;
  headers: Record<string, string | undefined>;
  /** The exact bytes received: the signature covers them. */
  rawBody: string;
}

/** What the caller provides: the refusal budgets (kept per process by the API) and the settlement signal. */
export interface DeliveryPorts extends Pick<EffectScope, 'signalSettlement'> {
  /** Counts a refused delivery against its client address's budget; throws (429) once that is spent. */
  spendAddressBudget(): void;
  /** Counts a wrong-token delivery against the named connector's budget; throws (429) once that is spent. */
  spendConnectorBudget(connectorId: string): void;
}

export interface DeliveryAnswer {
  /** The 200 answer's body. A refused event is still acknowledged: a retry would carry the same amount again. */
  body: { received: true; ignored: true } | { received: true; duplicate: boolean; refused?: Refusal };
  /** The transaction whose charge resolution waits on the verdict just kept (signal it now that it is committed). */
  wakeResolutionOf: string | null;
}

/**
 * A failed or refused delivery's receipt, written in its own statement: the delivery's own work rolls back, its
 * receipt must stay. A receipt that cannot be written never changes the provider's answer.
 */
async function logReceipt(em: EntityManager, logger: Logger, receipt: ReceiptInput): Promise<void> {
  try {
    await recordReceipt(em.fork(), receipt);
  } catch (error) {
    logger.warn({ err: error, connectorId: receipt.connectorId }, 'could not record a provider webhook receipt');
  }
}

export async function receiveProviderWebhook(
  deps: { em: EntityManager; logger: Logger; encryptionKeys: KeyMaterial },
  delivery: ProviderWebhookDelivery,
  ports: DeliveryPorts,
): Promise<DeliveryAnswer> {
  const { em, logger } = deps;
  const connector = await findConnectorByWebhookToken(em, delivery.connectorId, delivery.token);
  if (!connector) {
    // Refused deliveries spend their address's budget (past it: 429, no more lookups or receipts); a delivery with
    // the right token never meets it.
    ports.spendAddressBudget();
    // Logged only under a connector that exists (its Dashboard can show it); an unknown id is nobody's to read.
    const named = await em.findOne(MerchantConnectorSchema, { id: delivery.connectorId }, { fields: ['id'] });
    if (named) {
      // Past the connector's budget of wrong tokens: no more receipts this minute (the table and the Dashboard
      // would otherwise grow with the flood).
      ports.spendConnectorBudget(named.id);
      await logReceipt(em, logger, {
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
    await logReceipt(em, logger, {
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
  const { webhookSecret } = await loadConnectorSecrets(em, deps.encryptionKeys, connector.merchantId, connector.id);
  let event: InboundWebhook;
  try {
    event = adapterFor(connector.providerSlug).parseWebhook({
      headers: delivery.headers,
      rawBody: delivery.rawBody,
      webhookSecret,
    });
  } catch (error) {
    if (error instanceof UnhandledWebhookEventError) {
      await logReceipt(em, logger, {
        connectorId: connector.id,
        status: 'ignored',
        reason: 'unhandled_event_type',
        eventType: error.eventType,
      });
      return { body: { received: true, ignored: true }, wakeResolutionOf: null };
    }
    if (error instanceof InvalidWebhookError) {
      ports.spendAddressBudget();
      // The adapters' messages are fixed texts (never the body, a header or the secret).
      await logReceipt(em, logger, {
        connectorId: connector.id,
        status: 'invalid',
        reason: refusalReason(error.message),
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
  const scope: EffectScope = {
    connectorId: connector.id,
    merchantId: connector.merchantId,
    signalSettlement: ports.signalSettlement,
  };
  let wakeResolutionOf: string | null = null;
  try {
    const body = await em.transactional(async (tx) => {
      const key = { connectorId: connector.id, providerEventId: event.eventId };
      if (!(await claimProviderEvent(tx, key, { eventType: event.type, providerReference: event.providerReference }))) {
        await recordReceipt(tx, { ...received, status: 'duplicate' });
        return { received: true as const, duplicate: true };
      }
      // A verdict on a charge attempt whose own answer was lost is kept on the attempt: the answer the charge's
      // resolution waits for (woken by the caller, once committed), or for the reconciler once the charge has failed.
      const verdict = await recordWebhookVerdictOnUnansweredAttempt(tx, scope, event);
      if (verdict?.awaitsResolution) wakeResolutionOf = event.reference;
      const refused = verdict?.awaitsResolution ? null : await applyProviderEvent(tx, scope, event);
      // In the same transaction as the effect: a receipt says processed only if the effect committed.
      await recordReceipt(
        tx,
        refused ? { ...received, status: 'ignored', reason: refused } : { ...received, status: 'processed' },
      );
      return refused
        ? { received: true as const, duplicate: false, refused }
        : { received: true as const, duplicate: false };
    });
    return { body, wakeResolutionOf };
  } catch (error) {
    await logReceipt(em, logger, {
      ...received,
      status: 'failed',
      reason: error instanceof ApiError ? error.code : 'INTERNAL_ERROR',
    });
    throw error;
  }
}
