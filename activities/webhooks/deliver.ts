/**
 * One delivery attempt (workflows/webhook-delivery.ts makes up to eight): load the event and the endpoint,
 * sign the Event envelope per Standard Webhooks, POST it, and record the attempt — all from ids, so neither the
 * secret nor the payload ever enters workflow history.
 *
 * Outcomes: 2xx → succeeded. 410 Gone → failed, and the endpoint is deactivated (is_active false, recorded in
 * the merchant activity log). Anything else — 3xx (redirects are not followed), other 4xx, 429, 5xx, timeouts,
 * connection/DNS/TLS errors, a blocked address — → retrying while the schedule has attempts left, else failed.
 * A Retry-After on the response stretches the next wait (the schedule in workflows/webhook-delivery.shared.ts).
 */
import { deactivateConfig, recordDeliveryAttempt, touchLastTriggered } from '../../db/repositories/webhooks.repository';
import type { EntityManager } from '@mikro-orm/postgresql';
import { deliveryTarget, type DeliveryTarget } from '../../db/repositories/events.repository';
import type { DeliveryStatus, DeliveryTrigger } from '../../db/entities';
import type { Orm } from '../../db/orm';
import { decryptSecret, type KeyMaterial } from '../../domain/platform/crypto';
import { newId } from '../../domain/platform/ids';
import { recordActivity } from '../../domain/merchants/merchants.activity';
import { eventEnvelope } from '../../domain/events/events.outbox';
import { waitBeforeNext, type DeliveryEnd, type NextAttempt } from '../../workflows/webhook-delivery.shared';
import { postJson, type PostResult } from './http-post';
import { signPayload } from '../../domain/webhooks/webhooks.outbound';
import type { Config } from '../../domain/platform/config';
import { annotateActiveSpan, spanInStoredTrace } from '../../domain/platform/tracing';

/** What the webhook activities need from the configuration, resolved once by the worker. */
export interface WebhookSettings {
  /** Opens the stored signing secrets (the keyring, so a master-key rotation in progress is fine). */
  keys: KeyMaterial;
  /** Only in local/test mode: deliveries may reach loopback and private addresses. */
  allowPrivateTargets: boolean;
  /** Whole-exchange deadline of one attempt (Document 1: receivers answer within a few seconds). */
  timeoutMs: number;
}

export const DELIVERY_TIMEOUT_MS = 15_000;
/** The most of a response body read (the rest is dropped with the connection) and the most stored. */
export const RESPONSE_READ_LIMIT_BYTES = 64 * 1024;
export const RESPONSE_KEEP_BYTES = 1024;

export function webhookSettingsOf(config: Config): WebhookSettings {
  return {
    keys: config.encryptionKeys,
    allowPrivateTargets: config.env === 'local' || config.env === 'test',
    timeoutMs: DELIVERY_TIMEOUT_MS,
  };
}

/**
 * Per-merchant cap on webhook attempts in flight in one worker process. Every merchant shares the `webhooks`
 * task queue, whose tasks Temporal hands out roughly in arrival order; without a cap, one merchant's flood (many
 * events to many endpoints, or endpoints that never answer) fills the activity slots and another merchant's
 * deliveries wait behind it. The delivery activity takes a merchant slot for its attempt; with none free it sends
 * nothing and answers `deferred`, and the delivery workflow waits and asks again (the attempt is not counted). The
 * activity slot is given back at once, so other merchants' attempts run.
 */
export const MAX_ATTEMPTS_IN_FLIGHT_PER_MERCHANT = 16;
/** The longest a deferred attempt waits before it asks again. */
export const MAX_DEFERRAL_MS = 30_000;
/**
 * How long a deferred attempt waits before it asks again: 1 to 3 s, doubled for each deferral of this attempt in a
 * row (up to MAX_DEFERRAL_MS), spread so deferred ones do not move in step. Each ask is a workflow task, an
 * activity task and a timer on the queue every merchant shares: a flood's deferred deliveries must not poll so
 * often that the queue's backlog holds up another merchant's delivery.
 */
export const deferralMs = (deferrals = 0, random: () => number = Math.random) =>
  Math.min(MAX_DEFERRAL_MS, (1000 + Math.floor(random() * 2000)) * 2 ** Math.min(deferrals, 5));

export class MerchantSlots {
  private readonly taken = new Map<string, number>();

  constructor(private readonly limit: number) {}

  /** true when the merchant had a free slot (now taken: release() it after the attempt). */
  tryTake(merchantId: string): boolean {
    const count = this.taken.get(merchantId) ?? 0;
    if (count >= this.limit) return false;
    this.taken.set(merchantId, count + 1);
    return true;
  }

  release(merchantId: string): void {
    const count = this.taken.get(merchantId) ?? 0;
    if (count <= 1) this.taken.delete(merchantId);
    else this.taken.set(merchantId, count - 1);
  }
}

export const USER_AGENT = 'Switchyard-Webhooks/1.0 (+https://www.standardwebhooks.com)';

export interface DeliverInput {
  eventId: string;
  configId: string;
  /** With attempt, the key of the attempt's record: a retried activity rewrites its own row. */
  workflowId: string;
  trigger: DeliveryTrigger;
  attempt: number;
  /** The slot after this attempt; null when this attempt is the last one. */
  next: NextAttempt | null;
  /**
   * The merchant whose cap this attempt counts against, set by workflows that handle `deferred`: past
   * the cap the attempt is not made. Workflows started before that change do not set it and are never deferred.
   */
  deferFor?: string;
  /** How many times in a row this attempt was deferred already (the wait grows with it). */
  deferrals?: number;
}

export interface DeliverResult {
  /** deferred: nothing was sent (the merchant's attempts in flight are at their cap); ask again after waitMs. */
  outcome: 'succeeded' | 'retrying' | 'failed' | 'deferred';
  /** How long to wait before the next attempt (retrying), or before asking again (deferred). */
  waitMs: number | null;
  /** Why the delivery is over (succeeded/failed only). */
  end: DeliveryEnd | null;
  httpStatus: number | null;
}

/** The current secret, plus the one a rotation replaced while its overlap lasts. */
function signingSecrets(target: DeliveryTarget, settings: WebhookSettings): string[] {
  const secrets = [decryptSecret(settings.keys, target.secret_encrypted as string)];
  if (target.previous_secret_encrypted) secrets.push(decryptSecret(settings.keys, target.previous_secret_encrypted));
  return secrets;
}

interface AttemptRecord {
  status: DeliveryStatus;
  result: PostResult | null;
  error: string | null;
  nextRetryAt: Date | null;
  sentAt: Date | null;
}

async function writeAttempt(
  em: EntityManager,
  input: DeliverInput,
  target: DeliveryTarget,
  record: AttemptRecord,
): Promise<void> {
  await recordDeliveryAttempt(em, {
    id: newId('whd'),
    merchantId: target.merchant_id,
    configId: input.configId,
    eventId: target.event_id,
    eventType: target.type,
    workflowId: input.workflowId,
    trigger: input.trigger,
    attemptNumber: input.attempt,
    targetUrl: target.url,
    httpStatusCode: record.result?.status ?? null,
    responseBody: record.result?.body ?? null,
    error: record.error,
    status: record.status,
    nextRetryAt: record.nextRetryAt,
    durationMs: record.result?.durationMs ?? null,
    sentAt: record.sentAt,
  });
}

/** Sends one attempt to a loaded, active target and records it (the delivery log row, last_triggered_at, a 410's deactivation). */
function sendAndRecord(
  em: EntityManager,
  webhooks: WebhookSettings,
  input: DeliverInput,
  target: DeliveryTarget,
): Promise<DeliverResult> {
  // In the trace of the change that recorded the event (a transaction's, a request's): ids and outcomes only, never
  // the endpoint's URL (it may embed a secret); its POST's span names the origin alone (domain/platform/tracing.ts).
  return spanInStoredTrace(
    target.traceparent,
    'webhook delivery',
    {
      'switchyard.merchant_id': target.merchant_id,
      'switchyard.event_id': target.event_id,
      'switchyard.event_type': target.type,
      'switchyard.webhook_config_id': input.configId,
      'switchyard.attempt_number': input.attempt,
    },
    () => sendAndRecordInSpan(em, webhooks, input, target),
  );
}

async function sendAndRecordInSpan(
  em: EntityManager,
  webhooks: WebhookSettings,
  input: DeliverInput,
  target: DeliveryTarget,
): Promise<DeliverResult> {
  const sentAt = new Date();
  // The exact bytes signed are the bytes sent; the event id is the Standard Webhooks message id (dedup key).
  const body = JSON.stringify(
    eventEnvelope({
      id: target.event_id,
      type: target.type,
      livemode: target.livemode,
      createdAt: new Date(target.created_at),
      data: target.data,
    }),
  );
  const signed = signPayload(
    signingSecrets(target, webhooks),
    target.event_id,
    Math.floor(sentAt.getTime() / 1000),
    body,
  );
  const result = await postJson(
    target.url as string,
    body,
    {
      ...signed,
      'x-switchyard-signature': signed['webhook-signature'],
      'user-agent': USER_AGENT,
    },
    {
      timeoutMs: webhooks.timeoutMs,
      allowPrivateTargets: webhooks.allowPrivateTargets,
      maxReadBytes: RESPONSE_READ_LIMIT_BYTES,
      keepBytes: RESPONSE_KEEP_BYTES,
    },
  );

  const status = result.status;
  const delivered = status !== null && status >= 200 && status < 300;
  const gone = status === 410;
  const waitMs =
    !delivered && !gone && input.next
      ? waitBeforeNext(input.next, result.retryAfterSeconds === null ? null : result.retryAfterSeconds * 1000)
      : null;
  const outcome: DeliverResult['outcome'] = delivered ? 'succeeded' : waitMs !== null ? 'retrying' : 'failed';
  const requestMade = result.error !== 'blocked_address';

  const nextRetryAt = waitMs !== null ? new Date(sentAt.getTime() + result.durationMs + waitMs) : null;
  await em.transactional(async (tx) => {
    await writeAttempt(tx, input, target, {
      status: outcome,
      result,
      error: result.error,
      nextRetryAt,
      sentAt: requestMade ? sentAt : null,
    });
    if (requestMade) {
      await touchLastTriggered(tx, input.configId, sentAt);
    }
    if (gone) {
      if (await deactivateConfig(tx, input.configId)) {
        recordActivity(tx, {
          organizationId: target.organization_id,
          merchantId: target.merchant_id,
          action: 'webhook_config.deactivated',
          actor: { type: 'system', id: null },
          changes: {
            webhook_id: input.configId,
            is_active: { from: true, to: false },
            reason: 'The endpoint answered 410 Gone',
            event_id: target.event_id,
          },
        });
      }
    }
  });

  const end: DeliveryEnd | null = delivered ? 'delivered' : gone ? 'gone' : outcome === 'failed' ? 'exhausted' : null;
  annotateActiveSpan({
    'switchyard.outcome': outcome,
    ...(status === null ? {} : { 'http.response.status_code': status }),
  });
  return { outcome, waitMs, end, httpStatus: status };
}

export function createDeliverActivities({ orm, webhooks }: { orm: Orm; webhooks?: WebhookSettings }) {
  // One per worker process: a merchant's attempts in flight (MerchantSlots above).
  const merchants = new MerchantSlots(MAX_ATTEMPTS_IN_FLIGHT_PER_MERCHANT);
  return {
    async deliverWebhook(input: DeliverInput): Promise<DeliverResult> {
      if (!webhooks) throw new Error('The worker was started without webhook settings (webhookSettingsOf)');
      // Checked before anything is read: a deferral costs no query.
      const { deferFor } = input;
      if (deferFor !== undefined && !merchants.tryTake(deferFor)) {
        return { outcome: 'deferred', waitMs: deferralMs(input.deferrals), end: null, httpStatus: null };
      }
      try {
        return await attempt(webhooks, input);
      } finally {
        if (deferFor !== undefined) merchants.release(deferFor);
      }
    },
  };

  async function attempt(settings: WebhookSettings, input: DeliverInput): Promise<DeliverResult> {
    const em = orm.em.fork();
    const target = await deliveryTarget(em, input.eventId, input.configId);
    // A deleted endpoint (or an event that does not exist) leaves nothing to attempt or to record.
    if (!target?.config_id) return { outcome: 'failed', waitMs: null, end: 'endpoint_deleted', httpStatus: null };

    if (!target.is_active) {
      await writeAttempt(em, input, target, {
        status: 'failed',
        result: null,
        error: 'endpoint_disabled',
        nextRetryAt: null,
        sentAt: null,
      });
      return { outcome: 'failed', waitMs: null, end: 'endpoint_disabled', httpStatus: null };
    }
    return sendAndRecord(em, settings, input, target);
  }
}
