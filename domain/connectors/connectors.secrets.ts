/**
 * The only code that opens a connector's secrets. loadConnectorSecrets is for activities (a provider call
 * needs the credentials just before it is made; openCredentials when the row was read with other data); findConnectorByWebhookToken is for the inbound-webhook
 * endpoint. Nothing returned here may be logged, put in a workflow payload or sent to a client.
 */
import { randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { MerchantConnectorSchema, type MerchantConnector } from '../../db/entities';
import { constantTimeEqual, decryptSecret, encryptSecret, hashSecret, type KeyMaterial } from '../platform/crypto';
import { errors } from '../platform/errors';

export interface ConnectorSecrets {
  connector: MerchantConnector;
  /** The provider's credential object (shape per domain/connectors/credentials.ts). */
  credentials: Record<string, unknown>;
  /** The inbound-webhook signing secret as configured (provider_b: the JSON string), or null. */
  webhookSecret: string | null;
}

export async function loadConnectorSecrets(
  em: EntityManager,
  keys: KeyMaterial,
  merchantId: string,
  connectorId: string,
): Promise<ConnectorSecrets> {
  const connector = await em.findOne(MerchantConnectorSchema, { id: connectorId, merchantId });
  if (!connector) throw errors.notFound('No such connector');
  return {
    connector,
    credentials: openCredentials(keys, connector.credentialsEncrypted),
    webhookSecret:
      connector.webhookSecretEncrypted === null ? null : decryptSecret(keys, connector.webhookSecretEncrypted),
  };
}

/** A connector's provider credentials from its sealed column (read by the caller, e.g. with an attempt's start). */
export function openCredentials(keys: KeyMaterial, credentialsEncrypted: string): Record<string, unknown> {
  return JSON.parse(decryptSecret(keys, credentialsEncrypted)) as Record<string, unknown>;
}

/**
 * The connector whose webhook_url carries `token`, or null. Looked up by id (from the URL path), then the
 * token's SHA-256 is compared in constant time, so timing says nothing about a guessed token.
 */
export async function findConnectorByWebhookToken(
  em: EntityManager,
  connectorId: string,
  token: string,
): Promise<MerchantConnector | null> {
  const connector = await em.findOne(MerchantConnectorSchema, { id: connectorId });
  const presented = hashSecret(token);
  // Compare even when there is no connector, so an unknown id costs the same as a wrong token.
  const matches = constantTimeEqual(presented, connector?.webhookTokenHash ?? hashSecret(''));
  return connector && matches ? connector : null;
}

/** A new per-connector webhook token: 256 random bits, URL-safe; stored encrypted (to show) and hashed (to find). */
export function newWebhookToken(keys: KeyMaterial): { token: string; encrypted: string; hash: string } {
  const token = randomBytes(32).toString('base64url');
  return { token, encrypted: encryptSecret(keys, token), hash: hashSecret(token) };
}

/**
 * `${PUBLIC_BASE_URL}/api/v1/webhooks/inbound/<connector id>?token=<token>` (served by
 * api/modules/provider-webhooks/).
 */
export function webhookUrlOf(connector: MerchantConnector, keys: KeyMaterial, publicBaseUrl: string): string {
  const token = decryptSecret(keys, connector.webhookTokenEncrypted);
  return `${publicBaseUrl}/api/v1/webhooks/inbound/${connector.id}?token=${encodeURIComponent(token)}`;
}
