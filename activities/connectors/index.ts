/** Connector activities: the provider's own credentials check, with credentials opened only here. */
import type { Orm } from '../../db/orm';
import { loadConnectorSecrets } from '../../domain/connectors/connectors.secrets';
import type { VaultSettings } from '../vault';
import type { CredentialCheckInput, CredentialCheckResult } from '../../workflows/connector-credential-check.shared';

export interface ConnectorActivityDeps {
  orm: Orm;
  vault?: VaultSettings;
}

export function createConnectorActivities({ orm, vault }: ConnectorActivityDeps) {
  return {
    async checkConnectorCredentials(input: CredentialCheckInput): Promise<CredentialCheckResult> {
      if (!vault) throw new Error('This worker was started without vault settings');
      const { connector, credentials } = await loadConnectorSecrets(
        orm.em.fork(),
        vault.encryptionKeys,
        input.merchantId,
        input.connectorId,
      );
      const verdict = await vault.adapterFor(connector.providerSlug).testCredentials({
        baseUrl: vault.providerBaseUrl(connector),
        credentials,
        timeoutMs: vault.providerTimeoutMs,
      });
      return { ok: verdict.ok, message: verdict.message, checkedAt: new Date().toISOString() };
    },
  };
}
