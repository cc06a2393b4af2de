/** What the vault activities need from configuration: the keyring, the adapters and where providers live. */
import type { Config } from '../../domain/platform/config';
import { adapterFor, providerBaseUrl } from '../../domain/connectors/registry';
import type { VaultSettings } from './index';

export function vaultSettingsOf(config: Config): VaultSettings {
  return {
    encryptionKeys: config.encryptionKeys,
    adapterFor,
    providerBaseUrl: (connector) => providerBaseUrl(connector.providerSlug, connector.isTestMode, config),
    providerTimeoutMs: 15_000,
    inDoubtAfterMs: config.providerOutcomeInDoubtDays * 86_400_000,
    threeDsReturnUrl: (transactionId) =>
      `${config.publicBaseUrl.replace(/\/+$/, '')}/api/v1/transactions/${transactionId}/three-ds/return`,
    threeDsChallengeMs: config.threeDsChallengeMinutes * 60_000,
  };
}
