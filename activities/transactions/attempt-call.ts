/**
 * The provider call a charge attempt made, rebuilt so the provider can be asked about it again under the attempt's
 * own idempotency key (charge workflow id + attempt number, as attemptCharge sent it). Shared by the charge's own
 * resolution of an unknown attempt and by the reconciler.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { loadConnectorSecrets } from '../../domain/connectors/connectors.secrets';
import type { ConnectorAdapter, ProviderCall } from '../../domain/connectors/connector';
import type { VaultSettings } from '../vault';
import { isUnusableAttemptSetup } from './provider-call';

export interface AttemptRef {
  merchantId: string;
  connectorId: string;
  workflowId: string;
  attemptNumber: number;
}

/** The adapter and the call to ask with; null when the connector cannot be used (deleted: nobody can be asked). */
export async function attemptCallOf(
  em: EntityManager,
  vault: VaultSettings,
  attempt: AttemptRef,
): Promise<{ adapter: ConnectorAdapter; call: ProviderCall } | null> {
  let secrets: Awaited<ReturnType<typeof loadConnectorSecrets>>;
  try {
    secrets = await loadConnectorSecrets(em, vault.encryptionKeys, attempt.merchantId, attempt.connectorId);
  } catch (error) {
    if (isUnusableAttemptSetup(error)) return null;
    throw error;
  }
  return {
    adapter: vault.adapterFor(secrets.connector.providerSlug),
    call: {
      baseUrl: vault.providerBaseUrl(secrets.connector),
      credentials: secrets.credentials,
      idempotencyKey: `${attempt.workflowId}:${attempt.attemptNumber}`,
      timeoutMs: vault.providerTimeoutMs,
    },
  };
}
