/** Document 3's Connector. Credentials and secrets are never read here; has_webhook_secret says only whether one exists. */
import type { MerchantConnector } from '../../../db/entities';
import { webhookUrlOf } from '../../../domain/connectors/connectors.secrets';
import type { AppDeps } from '../../deps';

export function presentConnector(connector: MerchantConnector, webhookUrl: string | null) {
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
  };
}

/** The presenter with the connector's webhook URL filled in from the app's settings. */
export const connectorPresenter = (deps: AppDeps) => (connector: MerchantConnector) =>
  presentConnector(connector, webhookUrlOf(connector, deps.config.encryptionKeys, deps.config.publicBaseUrl));
