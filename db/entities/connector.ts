import { EntitySchema } from '@mikro-orm/core';
import { createdAt, updatedAt } from './timestamps';

export interface ConnectorConfig {
  /** Narrows the brands surfaced to the browser SDK; absent = the provider's defaults. */
  card_brands?: string[];
  installments_enabled?: boolean;
  /** Circuit breaker settings; absent = the defaults (5 failures, 60 s cool-down). */
  circuit_breaker?: { failure_threshold?: number; cooldown_seconds?: number };
}

/** A merchant's connection to a payment provider. Secrets are stored envelope-encrypted only. */
export interface MerchantConnector {
  id: string;
  merchantId: string;
  providerSlug: string;
  name: string;
  countryCode: string | null;
  authMethod: 'api_key' | 'oauth2';
  isTestMode: boolean;
  isActive: boolean;
  credentialsEncrypted: string;
  webhookTokenEncrypted: string;
  webhookTokenHash: string;
  webhookSecretEncrypted: string | null;
  config: ConnectorConfig | null;
  createdAt: Date;
  updatedAt: Date;
}

export const MerchantConnectorSchema = new EntitySchema<MerchantConnector>({
  name: 'MerchantConnector',
  tableName: 'merchant_connectors',
  properties: {
    id: { type: 'string', primary: true },
    merchantId: { type: 'string' },
    providerSlug: { type: 'string' },
    name: { type: 'string' },
    countryCode: { type: 'string', nullable: true },
    authMethod: { type: 'string' },
    isTestMode: { type: 'boolean' },
    isActive: { type: 'boolean', default: true },
    credentialsEncrypted: { type: 'text', hidden: true },
    webhookTokenEncrypted: { type: 'text', hidden: true },
    webhookTokenHash: { type: 'string', hidden: true },
    webhookSecretEncrypted: { type: 'text', nullable: true, hidden: true },
    config: { type: 'json', nullable: true },
    createdAt,
    updatedAt,
  },
});
