/** Vault activities: provider calls that need a sealed card, opened here just before the call and nowhere else. */
import type { Orm } from '../../db/orm';
import type { Config } from '../../domain/platform/config';
import type { KeyMaterial } from '../../domain/platform/crypto';
import { loadConnectorSecrets } from '../../domain/connectors/connectors.secrets';
import type { ConnectorAdapter, Outcome } from '../../domain/connectors/connector';
import { adapterFor, providerBaseUrl } from '../../domain/connectors/registry';
import { resolveOutcome } from '../transactions/unknown-outcome';
import { readTokenCard } from './card-source';

export interface VaultSettings {
  /** The master keyring: opens sealed cards and connector credentials. */
  encryptionKeys: KeyMaterial;
  /** The adapter for a provider slug (domain/connectors/registry.ts). */
  adapterFor(slug: string): ConnectorAdapter;
  /** Where a connector's provider API is: the sandbox PSP for test-mode connectors. */
  providerBaseUrl(connector: { providerSlug: string; isTestMode: boolean }): string;
  providerTimeoutMs: number;
  /** How long after its request a provider outcome nobody could tell is escalated as in doubt. */
  inDoubtAfterMs: number;
  /** Where the provider sends the buyer after a 3-D Secure challenge: the API's return endpoint for the charge. */
  threeDsReturnUrl(transactionId: string): string;
  /** How long a charge waits for the buyer's challenge. */
  threeDsChallengeMs: number;
}

/** What the vault activities need from configuration: the keyring, the adapters and where providers live. */
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

export interface VaultDeps {
  orm: Orm;
  /** Optional so workers and tests that run no provider call need not build it. */
  vault?: VaultSettings;
}

export interface VerifyCardInput {
  merchantId: string;
  tokenId: string;
  connectorId: string;
  currency: string;
  idempotencyKey: string;
}

/** Ids and the normalised outcome only: nothing here may describe the card. */
export interface VerifyCardOutput {
  outcome: Outcome;
  providerReference: string | null;
  rawCode: string | null;
  networkTransactionId: string | null;
}

export function createVaultActivities({ orm, vault }: VaultDeps) {
  return {
    async verifyCardOnConnector(input: VerifyCardInput): Promise<VerifyCardOutput> {
      if (!vault) throw new Error('This worker was started without vault settings');
      const em = orm.em.fork();
      const { connector, credentials } = await loadConnectorSecrets(
        em,
        vault.encryptionKeys,
        input.merchantId,
        input.connectorId,
      );
      const card = await readTokenCard(em, vault.encryptionKeys, input.merchantId, input.tokenId);
      const adapter = vault.adapterFor(connector.providerSlug);
      const call = {
        baseUrl: vault.providerBaseUrl(connector),
        credentials,
        idempotencyKey: input.idempotencyKey,
        timeoutMs: vault.providerTimeoutMs,
      };
      // Like a charge attempt: an unknown outcome is looked up under the same key before the workflow decides.
      const result = await resolveOutcome(adapter, call, { operation: 'verify', reference: input.tokenId }, () =>
        adapter.verifyCard(call, { card, currency: input.currency, reference: input.tokenId }),
      );
      return {
        outcome: result.outcome,
        providerReference: result.providerReference,
        rawCode: result.rawCode,
        networkTransactionId: result.networkTransactionId ?? null,
      };
    },
  };
}
