/** Document 3's Connector. Credentials and secrets are never read here; has_webhook_secret says only whether one exists. */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { MerchantConnector } from '../../../db/entities';
import { webhookUrlOf } from '../../../domain/connectors/connectors.secrets';
import {
  healthWindow,
  presentHealth,
  windowStart,
  type PresentedHealth,
} from '../../../domain/connectors/connector-health';
import { healthOf } from '../../../domain/connectors/connector-health';
import type { AppDeps } from '../../deps';

/** A connector just created: its circuit is closed and nothing has been tried yet. */
const freshHealth = () =>
  presentHealth(undefined, healthWindow({ attempts: 0, approved: 0, declined: 0, errors: 0 }, windowStart(new Date())));

export function presentConnector(connector: MerchantConnector, webhookUrl: string | null, health?: PresentedHealth) {
  return {
    id: connector.id,
    merchant_id: connector.merchantId,
    provider_slug: connector.providerSlug,
    name: connector.name,
    country_code: connector.countryCode,
    auth_method: connector.authMethod,
    is_test_mode: connector.isTestMode,
    is_active: connector.isActive,
    created_at: connector.createdAt.toISOString(),
    updated_at: connector.updatedAt.toISOString(),
    webhook_url: webhookUrl,
    has_webhook_secret: connector.webhookSecretEncrypted !== null,
    config: connector.config,
    health: health ?? freshHealth(),
  };
}

/** The presenter with the connector's webhook URL filled in from the app's settings (health: a new connector's). */
export const connectorPresenter = (deps: AppDeps) => (connector: MerchantConnector, health?: PresentedHealth) =>
  presentConnector(connector, webhookUrlOf(connector, deps.config.encryptionKeys, deps.config.publicBaseUrl), health);

/** Connectors with their current health, read in two statements for the whole page. */
export async function presentWithHealth(deps: AppDeps, em: EntityManager, connectors: MerchantConnector[]) {
  const health = await healthOf(
    em,
    connectors.map((connector) => connector.id),
  );
  return connectors.map((connector) => connectorPresenter(deps)(connector, health.get(connector.id)));
}
