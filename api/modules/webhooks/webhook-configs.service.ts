/**
 * Webhook endpoint management (Document 1): URL rules, event filters checked against the catalog, the signing
 * secret generated here, shown once and stored encrypted, and a merchant activity record for every change
 * (naming a secret change, never its value).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Static } from '@sinclair/typebox';
import { LockMode } from '@mikro-orm/core';
import { MerchantSchema, WebhookConfigSchema, type WebhookConfig } from '../../../db/entities';
import type { AppEnv } from '../../../domain/platform/config';
import { errors } from '../../../domain/platform/errors';
import { offsetOf, type PageRequest } from '../../http/pagination';
import { encryptSecret, type KeyMaterial } from '../../../domain/platform/crypto';
import { newId } from '../../../domain/platform/ids';
import { diff, recordActivity, type Actor } from '../../../domain/merchants/merchants.activity';
import { generateSigningSecret } from '../../../domain/webhooks/webhooks.outbound';
import { assertWebhookUrl } from './webhook-url.rules';
import type { CreateWebhookConfigBody, UpdateWebhookConfigBody } from './webhooks.schema';

type CreateInput = Static<typeof CreateWebhookConfigBody>;
type UpdateInput = Static<typeof UpdateWebhookConfigBody>;

export interface WebhookContext {
  keys: KeyMaterial;
  env: AppEnv;
  organizationId: string;
  actor: Actor;
}

/** The fields an activity record may show. */
const auditable = (config: WebhookConfig) => ({
  url: config.url,
  description: config.description,
  event_filter: config.eventFilter,
  is_active: config.isActive,
});

function record(
  em: EntityManager,
  ctx: WebhookContext,
  config: WebhookConfig,
  action: string,
  changes: Record<string, unknown>,
): void {
  recordActivity(em, {
    organizationId: ctx.organizationId,
    merchantId: config.merchantId,
    action,
    actor: ctx.actor,
    changes: { webhook_id: config.id, ...changes },
  });
}

/**
 * Endpoints per merchant (Stripe's limit too): every event goes to every endpoint, so without a cap one merchant
 * turns each event into any number of signed POSTs, re-sent for a day, and fills the shared delivery queue.
 */
export const MAX_WEBHOOK_CONFIGS_PER_MERCHANT = 16;

export async function createWebhookConfig(
  em: EntityManager,
  merchantId: string,
  input: CreateInput,
  ctx: WebhookContext,
): Promise<{ config: WebhookConfig; secret: string }> {
  assertWebhookUrl(input.url, ctx.env);
  // The merchant row lock makes concurrent creates count one after the other.
  await em.findOneOrFail(MerchantSchema, { id: merchantId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
  if ((await em.count(WebhookConfigSchema, { merchantId })) >= MAX_WEBHOOK_CONFIGS_PER_MERCHANT) {
    throw errors.businessRule(
      'WEBHOOK_CONFIG_LIMIT_REACHED',
      `A merchant has at most ${MAX_WEBHOOK_CONFIGS_PER_MERCHANT} webhook configurations; delete one first`,
    );
  }
  const secret = generateSigningSecret();
  const config = em.create(WebhookConfigSchema, {
    id: newId('whc'),
    merchantId,
    url: input.url,
    description: input.description ?? null,
    eventFilter: input.event_filter ?? null,
    isActive: true,
    secretEncrypted: encryptSecret(ctx.keys, secret),
    previousSecretEncrypted: null,
    previousSecretExpiresAt: null,
    lastTriggeredAt: null,
  } as WebhookConfig);
  record(em, ctx, config, 'webhook_config.created', { ...auditable(config), secret: 'set' });
  await em.flush();
  return { config, secret };
}

export async function getWebhookConfig(em: EntityManager, merchantId: string, id: string): Promise<WebhookConfig> {
  const config = await em.findOne(WebhookConfigSchema, { id, merchantId });
  if (!config) throw errors.notFound('No such webhook configuration');
  return config;
}

export async function listWebhookConfigs(
  em: EntityManager,
  merchantId: string,
  page: PageRequest,
): Promise<{ items: WebhookConfig[]; total: number }> {
  const [items, total] = await em.findAndCount(
    WebhookConfigSchema,
    { merchantId },
    {
      orderBy: { createdAt: 'desc', id: 'desc' },
      limit: page.limit,
      offset: offsetOf(page),
    },
  );
  return { items, total };
}

/** Unsent fields stay; description and event_filter accept null (none / every event). */
export async function updateWebhookConfig(
  em: EntityManager,
  merchantId: string,
  id: string,
  input: UpdateInput,
  ctx: WebhookContext,
): Promise<WebhookConfig> {
  const config = await getWebhookConfig(em, merchantId, id);
  if (input.url !== undefined) assertWebhookUrl(input.url, ctx.env);
  const before = auditable(config);
  if (input.url !== undefined) config.url = input.url;
  if (input.description !== undefined) config.description = input.description;
  if (input.event_filter !== undefined) config.eventFilter = input.event_filter;
  if (input.is_active !== undefined) config.isActive = input.is_active;
  const changes = diff(before, auditable(config));
  if (Object.keys(changes).length > 0) record(em, ctx, config, 'webhook_config.updated', changes);
  await em.flush();
  return config;
}

/** Deliveries in flight stop at their next attempt; the delivery records stay (history). */
export async function deleteWebhookConfig(
  em: EntityManager,
  merchantId: string,
  id: string,
  ctx: WebhookContext,
): Promise<void> {
  const config = await getWebhookConfig(em, merchantId, id);
  record(em, ctx, config, 'webhook_config.deleted', auditable(config));
  em.remove(config);
  await em.flush();
}

/**
 * A new secret, and the previous one stops being valid at once (Document 1: "the previous secret stops being
 * valid"; "Rotating invalidates the previous secret, so deploy the new one first or accept a short window of
 * failed verifications"). A rotation is often made because the secret leaked, so no overlap keeps it signing.
 */
export async function rotateWebhookSecret(
  em: EntityManager,
  merchantId: string,
  id: string,
  ctx: WebhookContext,
  now: Date = new Date(),
): Promise<{ config: WebhookConfig; secret: string }> {
  const config = await getWebhookConfig(em, merchantId, id);
  const secret = generateSigningSecret();
  // Also ends the overlap that rotations granted in earlier versions (the delivery still honours such a row).
  config.previousSecretEncrypted = null;
  config.previousSecretExpiresAt = null;
  config.secretEncrypted = encryptSecret(ctx.keys, secret);
  // An explicit change, so updated_at moves even though no presented field did.
  config.updatedAt = now;
  record(em, ctx, config, 'webhook_config.secret_rotated', { secret: 'rotated' });
  await em.flush();
  return { config, secret };
}
