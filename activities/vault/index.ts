/**
 * Vault activities: provider calls that need a sealed card, opened here just before the call and nowhere else.
 *
 * This is the only code that opens sealed cards, for the activity about to call a provider: a token's PAN, name and
 * CVC, or a saved instrument's PAN and name (merchant-initiated charges carry no CVC). What it returns must go
 * straight to the adapter: never into a log line, an error message, an activity result or a workflow payload.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { CardTokenCvcSchema, CardTokenSchema, PaymentInstrumentSchema } from '../../db/entities';
import type { Orm } from '../../db/orm';
import type { SealedCard } from '../../db/repositories/transaction-attempt-reads.repository';
import {
  CardUnavailableError,
  type CardData,
  type ConnectorAdapter,
  type Outcome,
} from '../../domain/connectors/connector';
import { loadConnectorSecrets } from '../../domain/connectors/connectors.secrets';
import { adapterFor, providerBaseUrl } from '../../domain/connectors/registry';
import type { Config } from '../../domain/platform/config';
import { decryptSecret, type KeyMaterial } from '../../domain/platform/crypto';
import { resolveOutcome } from '../transactions/provider-call';

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

// ── Opening sealed cards ─────────────────────────────────────────────────────────────────────────────────────

/** The card of an active token; throws when the token is missing, used or expired (its data is gone then). */
export async function readTokenCard(
  em: EntityManager,
  keys: KeyMaterial,
  merchantId: string,
  tokenId: string,
): Promise<CardData> {
  const token = await em.findOne(CardTokenSchema, { id: tokenId, merchantId });
  const cvc = token && (await em.findOne(CardTokenCvcSchema, { cardTokenId: tokenId }));
  return tokenCardOf(
    keys,
    tokenId,
    token && {
      status: token.status,
      expiresAt: token.expiresAt,
      panEncrypted: token.panEncrypted,
      holderNameEncrypted: token.holderNameEncrypted,
      expMonth: token.expMonth,
      expYear: token.expYear,
      cvcEncrypted: cvc?.cvcEncrypted ?? null,
    },
  );
}

/** readTokenCard on a token already read (null: none for this merchant). */
export function tokenCardOf(
  keys: KeyMaterial,
  tokenId: string,
  token: (SealedCard & { status: string; expiresAt: Date; cvcEncrypted: string | null }) | null,
): CardData {
  if (!token || token.status !== 'active' || !token.panEncrypted || token.expiresAt.getTime() <= Date.now()) {
    throw new CardUnavailableError(`Card token ${tokenId} is not usable (missing, used or expired)`);
  }
  return {
    number: decryptSecret(keys, token.panEncrypted),
    cvc: token.cvcEncrypted ? decryptSecret(keys, token.cvcEncrypted) : null,
    expMonth: token.expMonth ?? 0,
    expYear: token.expYear ?? 0,
    holderName: token.holderNameEncrypted ? decryptSecret(keys, token.holderNameEncrypted) : null,
  };
}

/** The card of a saved instrument (no CVC is ever kept for one). */
export async function readInstrumentCard(
  em: EntityManager,
  keys: KeyMaterial,
  merchantId: string,
  instrumentId: string,
): Promise<CardData> {
  const instrument = await em.findOne(PaymentInstrumentSchema, { id: instrumentId, merchantId });
  return instrumentCardOf(keys, instrumentId, instrument);
}

/** readInstrumentCard on an instrument already read (null: none for this merchant). */
export function instrumentCardOf(keys: KeyMaterial, instrumentId: string, instrument: SealedCard | null): CardData {
  if (!instrument?.panEncrypted) throw new CardUnavailableError(`Payment instrument ${instrumentId} does not exist`);
  return {
    number: decryptSecret(keys, instrument.panEncrypted),
    cvc: null,
    expMonth: instrument.expMonth ?? 0,
    expYear: instrument.expYear ?? 0,
    holderName: instrument.holderNameEncrypted ? decryptSecret(keys, instrument.holderNameEncrypted) : null,
  };
}
