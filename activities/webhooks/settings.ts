/** What the webhook activities need from the configuration, resolved once by the worker. */
import type { Config } from '../../domain/platform/config';
import type { KeyMaterial } from '../../domain/platform/crypto';

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
