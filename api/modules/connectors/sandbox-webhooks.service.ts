/**
 * Test-mode connectors call the sandbox PSP, which cannot know a connector's webhook_url (real providers take it
 * in their dashboards). So when a test-mode connector is created, or its webhook secret or credentials (the
 * sandbox account) change, the API registers the URL and secret at the sandbox's control API itself, replacing
 * the endpoint it registered before for that connector. Best effort: a sandbox that is down must not fail the
 * request, so failures are logged (connector id and HTTP status only — never the URL's token, credentials or
 * secret) and ignored.
 */
import type { Logger } from 'pino';
import type { MerchantConnector } from '../../../db/entities';
import { decryptSecret, type KeyMaterial } from '../../../domain/platform/crypto';
import { webhookUrlOf } from '../../../domain/connectors/connectors.secrets';

export interface SandboxRegistration {
  sandboxUrl: string;
  publicBaseUrl: string;
  keys: KeyMaterial;
  logger: Logger;
}

const TIMEOUT_MS = 2000;

/** The sandbox control API's answers this module reads. */
interface SandboxAnswer {
  account?: string;
  data?: Array<{ id: string; url: string }>;
}

async function call(
  base: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: SandboxAnswer | null }> {
  const response = await fetch(`${base}/_sandbox${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(TIMEOUT_MS),
  });
  const text = await response.text();
  return { status: response.status, body: text ? (JSON.parse(text) as SandboxAnswer) : null };
}

export async function registerSandboxWebhook(
  settings: SandboxRegistration | undefined,
  connector: MerchantConnector,
): Promise<void> {
  if (!settings?.sandboxUrl || !connector.isTestMode || connector.webhookSecretEncrypted === null) return;
  const { sandboxUrl, publicBaseUrl, keys, logger } = settings;
  try {
    const credentials = JSON.parse(decryptSecret(keys, connector.credentialsEncrypted)) as Record<string, unknown>;
    const secret = decryptSecret(keys, connector.webhookSecretEncrypted);
    const url = webhookUrlOf(connector, keys, publicBaseUrl);
    // The endpoint registered earlier for this connector (listed without its query string) would sign with a stale secret.
    const resolved = await call(sandboxUrl, 'POST', '/accounts/resolve', {
      provider: connector.providerSlug,
      credentials,
    });
    const account = resolved.body?.account;
    if (account) {
      const existing = await call(
        sandboxUrl,
        'GET',
        `/webhook-endpoints?${new URLSearchParams({ provider: connector.providerSlug, account }).toString()}`,
      );
      const ours = `${publicBaseUrl}/api/v1/webhooks/inbound/${connector.id}`;
      for (const endpoint of existing.body?.data ?? []) {
        if (endpoint.url.split('?')[0] === ours) await call(sandboxUrl, 'DELETE', `/webhook-endpoints/${endpoint.id}`);
      }
    }
    const registered = await call(sandboxUrl, 'POST', '/webhook-endpoints', {
      provider: connector.providerSlug,
      credentials,
      url,
      secret,
    });
    if (registered.status !== 201) {
      logger.warn({ connector_id: connector.id, status: registered.status }, 'sandbox webhook endpoint not registered');
    }
  } catch (error) {
    logger.warn(
      { connector_id: connector.id, reason: (error as Error).name },
      'sandbox webhook endpoint not registered',
    );
  }
}
