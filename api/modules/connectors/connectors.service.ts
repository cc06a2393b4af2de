/**
 * Merchant connectors (Document 3): provider-specific validation, secrets encrypted at rest, an activity
 * record for every change (naming changed secrets, never their values), and delete blocked while routing uses
 * the connector.
 */
import { ForeignKeyConstraintViolationException, LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Static } from '@sinclair/typebox';
import type { AppDeps } from '../../deps';
import {
  MerchantConnectorSchema,
  OrganizationSchema,
  RoutingNodeSchema,
  RoutingProfileSchema,
  type MerchantConnector,
  type PaymentProvider,
} from '../../../db/entities';
import { errors, type FieldErrors } from '../../../domain/platform/errors';
import { offsetOf, type PageRequest } from '../../http/pagination';
import { encryptSecret, type Keyring } from '../../../domain/platform/crypto';
import { newId } from '../../../domain/platform/ids';
import { diff, recordActivity, type Actor } from '../../../domain/merchants/merchants.activity';
import { activeProviderSlugs, findActiveProvider, getProvider } from '../payment-providers/payment-providers.service';
import {
  authMethodErrors,
  configErrors,
  countryErrors,
  credentialErrors,
  normalizeConfig,
  webhookSecretErrors,
} from './connectors.rules';
import { newWebhookToken } from '../../../domain/connectors/connectors.secrets';
import { registerSandboxWebhook, type SandboxRegistration } from './sandbox-webhooks.service';
import type { CreateConnectorBody, UpdateConnectorBody } from './connectors.schema';
import { circuitSettings } from '../../../domain/connectors/connector-health';
import { recordCircuitTransition } from '../../../domain/connectors/connector-health';
import { setCircuit } from '../../../db/repositories/connector-health.repository';
import { transactionsAwaitingConnector } from '../../../db/repositories/connector-usage.repository';
import { UNRESOLVED_PROVIDER_CALL } from '../../../workflows/lib/transaction-types';
import { AWAITING_PROVIDER } from '../../../domain/transactions/transactions.state-table';
import { signalBillingResumed } from '../../temporal/subscriptions';
import { liveSubscriptionIds } from '../subscriptions/subscriptions.service';

type CreateInput = Static<typeof CreateConnectorBody>;

export const TEST_CONNECTORS_DISABLED = 'TEST_CONNECTORS_DISABLED';
type UpdateInput = Static<typeof UpdateConnectorBody>;

/** The context a connector route hands the service: who acts, in which organization, with the app's settings. */
export const connectorContext = (deps: AppDeps, organizationId: string, actor: Actor): ConnectorContext => ({
  keys: deps.config.encryptionKeys,
  organizationId,
  actor,
  testConnectorsNeedSwitch: deps.config.env === 'production',
  sandbox: {
    sandboxUrl: deps.config.sandboxUrl,
    publicBaseUrl: deps.config.publicBaseUrl,
    keys: deps.config.encryptionKeys,
    logger: deps.logger,
  },
});

export interface ConnectorContext {
  keys: Keyring;
  organizationId: string;
  actor: Actor;
  /**
   * Production: a test-mode connector approves without collecting money, so one exists only once the organization
   * switched test connectors on (organization-settings.service.ts).
   */
  testConnectorsNeedSwitch: boolean;
  /** Where test-mode connectors' webhook endpoints are registered (the sandbox PSP); absent: nowhere. */
  sandbox?: SandboxRegistration;
}

function throwIfAny(details: FieldErrors, message: string): void {
  if (Object.keys(details).length > 0) throw errors.validation(details, message);
}

/** The non-secret fields an activity record may show. */
const auditable = (connector: MerchantConnector) => ({
  name: connector.name,
  is_active: connector.isActive,
  config: connector.config,
});

/**
 * A connector that is (again) active may end a billing hold (Document 3: renewals wait for "an active connector"
 * and resume once one is in place): the merchant's live subscriptions look again now, not at their daily re-check.
 * Every route that creates or activates a connector calls this (public API, organization and merchant Dashboard).
 */
export async function releaseBillingHolds(
  em: EntityManager,
  deps: AppDeps,
  connector: { merchantId: string; isActive: boolean },
) {
  if (connector.isActive)
    await signalBillingResumed(deps.temporal.client, await liveSubscriptionIds(em, connector.merchantId));
}

async function requireTestConnectorsEnabled(em: EntityManager, organizationId: string): Promise<void> {
  const organization = await em.findOneOrFail(OrganizationSchema, { id: organizationId });
  if (!organization.testConnectorsEnabled)
    throw errors.businessRule(
      TEST_CONNECTORS_DISABLED,
      'Test-mode connectors are off for this organization in production: an organization owner can switch them on ' +
        '(PATCH /org/settings {"test_connectors_enabled": true})',
    );
}

export async function createConnector(
  em: EntityManager,
  merchantId: string,
  input: CreateInput,
  ctx: ConnectorContext,
): Promise<MerchantConnector> {
  const provider = await findActiveProvider(em, input.provider_slug);
  if (!provider) {
    throw errors.invalidValue(
      'provider_slug',
      `must be one of the active providers: ${(await activeProviderSlugs(em)).join(', ')}`,
    );
  }
  const authErrors = authMethodErrors(provider, input.auth_method);
  throwIfAny(
    {
      ...authErrors,
      // The credential shape depends on a valid auth method (provider_c has one per method).
      ...(Object.keys(authErrors).length === 0
        ? credentialErrors(provider.slug, input.auth_method, input.credentials)
        : {}),
      ...countryErrors(provider, input.country_code),
      ...(input.webhook_secret != null ? webhookSecretErrors(provider.slug, input.webhook_secret) : {}),
      ...configErrors(provider, input.config ?? null),
    },
    `The connector is invalid or its credentials are incomplete for ${provider.slug}`,
  );
  if (input.is_test_mode && ctx.testConnectorsNeedSwitch) await requireTestConnectorsEnabled(em, ctx.organizationId);

  const token = newWebhookToken(ctx.keys);
  const connector = em.create(MerchantConnectorSchema, {
    id: newId('conn'),
    merchantId,
    providerSlug: provider.slug,
    name: input.name,
    countryCode: input.country_code ?? null,
    authMethod: input.auth_method,
    isTestMode: input.is_test_mode,
    isActive: input.is_active ?? true,
    credentialsEncrypted: encryptSecret(ctx.keys, JSON.stringify(input.credentials)),
    webhookTokenEncrypted: token.encrypted,
    webhookTokenHash: token.hash,
    webhookSecretEncrypted: input.webhook_secret != null ? encryptSecret(ctx.keys, input.webhook_secret) : null,
    config: normalizeConfig(input.config),
  } as MerchantConnector);
  recordActivity(em, {
    organizationId: ctx.organizationId,
    merchantId,
    action: 'connector.created',
    actor: ctx.actor,
    changes: {
      connector_id: connector.id,
      provider_slug: connector.providerSlug,
      auth_method: connector.authMethod,
      is_test_mode: connector.isTestMode,
      country_code: connector.countryCode,
      ...auditable(connector),
      credentials: 'set',
      webhook_secret: connector.webhookSecretEncrypted ? 'set' : 'not set',
    },
  });
  await em.flush();
  // In the request (there is no after-commit hook); best effort, never fails it. A rolled-back create leaves an
  // endpoint whose token matches no connector: its deliveries get 401, which is harmless.
  await registerSandboxWebhook(ctx.sandbox, connector);
  return connector;
}

export async function getConnector(em: EntityManager, merchantId: string, id: string): Promise<MerchantConnector> {
  const connector = await em.findOne(MerchantConnectorSchema, { id, merchantId });
  if (!connector) throw errors.notFound('No such connector');
  return connector;
}

/** One merchant's connectors, or several merchants' (the organization Dashboard lists all of its merchants'). */
export async function listConnectors(
  em: EntityManager,
  merchantId: string | string[],
  page: PageRequest,
): Promise<{ items: MerchantConnector[]; total: number }> {
  const [items, total] = await em.findAndCount(
    MerchantConnectorSchema,
    { merchantId: Array.isArray(merchantId) ? { $in: merchantId } : merchantId },
    {
      orderBy: { createdAt: 'desc', id: 'desc' },
      limit: page.limit,
      offset: offsetOf(page),
    },
  );
  return { items, total };
}

function validateUpdate(provider: PaymentProvider, connector: MerchantConnector, input: UpdateInput): void {
  throwIfAny(
    {
      // Re-validated against the stored provider and auth method (changing either means a new connector).
      ...(input.credentials !== undefined
        ? credentialErrors(provider.slug, connector.authMethod, input.credentials)
        : {}),
      ...(input.webhook_secret != null ? webhookSecretErrors(provider.slug, input.webhook_secret) : {}),
      ...(input.config !== undefined ? configErrors(provider, input.config) : {}),
    },
    `The update is invalid or the credentials are incomplete for ${provider.slug}`,
  );
}

/** Unsent fields stay; `config` is replaced as a whole (null clears it); `webhook_secret: null` removes the secret. */
export async function updateConnector(
  em: EntityManager,
  merchantId: string,
  id: string,
  input: UpdateInput,
  ctx: ConnectorContext,
): Promise<MerchantConnector> {
  const connector = await getConnector(em, merchantId, id);
  validateUpdate(await getProvider(em, connector.providerSlug), connector, input);

  const before = auditable(connector);
  const secretChanges: Record<string, string> = {};
  if (input.name !== undefined) connector.name = input.name;
  if (input.is_active !== undefined) connector.isActive = input.is_active;
  if (input.config !== undefined) connector.config = normalizeConfig(input.config);
  if (input.credentials !== undefined) {
    connector.credentialsEncrypted = encryptSecret(ctx.keys, JSON.stringify(input.credentials));
    secretChanges.credentials = 'changed';
  }
  if (input.webhook_secret !== undefined) {
    if (input.webhook_secret !== null)
      secretChanges.webhook_secret = connector.webhookSecretEncrypted ? 'changed' : 'set';
    else if (connector.webhookSecretEncrypted) secretChanges.webhook_secret = 'cleared';
    connector.webhookSecretEncrypted =
      input.webhook_secret === null ? null : encryptSecret(ctx.keys, input.webhook_secret);
  }

  const changes = { ...diff(before, auditable(connector)), ...secretChanges };
  if (Object.keys(changes).length > 0) {
    recordActivity(em, {
      organizationId: ctx.organizationId,
      merchantId,
      action: 'connector.updated',
      actor: ctx.actor,
      changes: { connector_id: connector.id, ...changes },
    });
  }
  await em.flush();
  // A new secret, or new credentials (the sandbox account), needs the sandbox endpoint registered again.
  if ((input.webhook_secret !== undefined && input.webhook_secret !== null) || input.credentials !== undefined) {
    await registerSandboxWebhook(ctx.sandbox, connector);
  }
  return connector;
}

/** Routing rows that name the connector: profiles using it as their default, nodes routing to it. */
async function routingReferences(em: EntityManager, connectorId: string): Promise<FieldErrors> {
  // One after the other: the route's transaction is one connection.
  const profiles = await em.find(
    RoutingProfileSchema,
    { defaultMerchantConnectorId: connectorId },
    { fields: ['id'], orderBy: { id: 'asc' } },
  );
  const nodes = await em.find(
    RoutingNodeSchema,
    { merchantConnectorId: connectorId },
    { fields: ['id'], orderBy: { id: 'asc' } },
  );
  return {
    ...(profiles.length > 0 ? { routing_profile_ids: profiles.map((profile) => profile.id) } : {}),
    ...(nodes.length > 0 ? { routing_node_ids: nodes.map((node) => node.id) } : {}),
  };
}

function connectorInUse(references: FieldErrors) {
  return errors.validation(
    Object.keys(references).length > 0 ? references : { connector_id: ['is still referenced by other records'] },
    'The connector is still needed: routing names it (a profile default or a routing node), or charges it made need its provider (a hold to capture or void, a refund or an answer it has not given); change or finish those first, or set is_active false to stop routing to it',
    'CONNECTOR_IN_USE',
  );
}

/**
 * Deletes a connector nothing needs any more: no routing names it, and none of its charges waits on its provider
 * (deleting destroys the credentials every capture, void, refund and lookup needs). The row is locked first, so a
 * capture, void or refund starting meanwhile (which share-locks it) is either seen here or refused after.
 */
export async function deleteConnector(
  em: EntityManager,
  merchantId: string,
  id: string,
  ctx: ConnectorContext,
): Promise<void> {
  try {
    await em.transactional(async (tx) => {
      const connector = await tx.findOne(
        MerchantConnectorSchema,
        { id, merchantId },
        { lockMode: LockMode.PESSIMISTIC_WRITE },
      );
      if (!connector) throw errors.notFound('No such connector');
      // Everything that still needs it, in one answer.
      const waiting = await transactionsAwaitingConnector(tx, merchantId, id, {
        statuses: AWAITING_PROVIDER,
        unresolvedCode: UNRESOLVED_PROVIDER_CALL,
      });
      const references = {
        ...(await routingReferences(tx, id)),
        ...(waiting.length > 0 ? { transaction_ids: waiting } : {}),
      };
      if (Object.keys(references).length > 0) throw connectorInUse(references);
      recordActivity(tx, {
        organizationId: ctx.organizationId,
        merchantId,
        action: 'connector.deleted',
        actor: ctx.actor,
        changes: { connector_id: connector.id, provider_slug: connector.providerSlug, name: connector.name },
      });
      tx.remove(connector);
    });
  } catch (error) {
    // A reference committed after the check above (or by a table added later): the foreign key refuses the delete.
    if (!(error instanceof ForeignKeyConstraintViolationException)) throw error;
    throw connectorInUse(await routingReferences(em.fork(), id));
  }
}

/**
 * Opens or closes a connector's circuit by hand (an owner during an incident, or to end one early): open starts a
 * cool-down from now after which one charge probes the connector; closed lets routing use it at once. A change is
 * recorded in the activity log and emitted (connector.circuit_opened / closed); asking for the current state
 * changes nothing and records nothing.
 */
export async function setConnectorCircuit(
  em: EntityManager,
  merchantId: string,
  id: string,
  to: 'open' | 'closed',
  ctx: Pick<ConnectorContext, 'actor'>,
): Promise<MerchantConnector> {
  const connector = await getConnector(em, merchantId, id);
  const settings = circuitSettings(connector.config);
  await em.transactional(async (tx) => {
    const transition = await setCircuit(tx, { id: connector.id, merchantId, ...settings }, to);
    if (transition)
      await recordCircuitTransition(tx, { connectorId: connector.id, transition, actor: ctx.actor, reason: 'manual' });
  });
  return connector;
}
