/**
 * The routing family's raw SQL: moving the one active profile of a payment method, a merchant's decline table
 * (merchant_routing_settings), and the charge's one read of everything routing needs (below). Profiles and nodes are
 * otherwise written through their entities by api/modules/routing/.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { DeclineAction } from '../../workflows/lib/transaction-types';
import type { ConnectorConfig, MerchantConnector } from '../entities/connector';
import type { PaymentProvider } from '../entities/payment-provider';
import type { RoutingNode, RoutingProfile } from '../entities/routing';

/**
 * The merchant's active profile for this payment method other than `exceptProfileId`, or null. Plain SQL: never
 * a stale identity-map copy.
 */
export async function activeRoutingProfileFor(
  em: EntityManager,
  merchantId: string,
  paymentMethod: string,
  exceptProfileId: string,
): Promise<string | null> {
  const rows = await em.execute<{ id: string }[]>(
    'select id from routing_profiles where merchant_id = ? and payment_method = ? and is_active and id <> ?',
    [merchantId, paymentMethod, exceptProfileId],
  );
  return rows[0]?.id ?? null;
}

/**
 * Deactivates the merchant's profile if it is active (atomic version bump; the update takes the row lock): its
 * new version, or null when it was not active.
 */
export async function deactivateRoutingProfile(
  em: EntityManager,
  merchantId: string,
  profileId: string,
): Promise<number | null> {
  const rows = await em.execute<{ version: number }[]>(
    `update routing_profiles set is_active = false, version = version + 1, updated_at = now()
      where id = ? and merchant_id = ? and is_active returning version`,
    [profileId, merchantId],
  );
  return rows[0]?.version ?? null;
}

/** The merchant_routing_settings row (timestamps as Date or, read as JSON, text). */
export interface StoredRoutingSettings {
  decline_actions: Record<string, DeclineAction>;
  code_actions: Record<string, DeclineAction>;
  updated_at: Date | string;
}

/** The merchant's stored decline table, or null when it never saved one. */
export async function storedRoutingSettings(
  em: EntityManager,
  merchantId: string,
): Promise<StoredRoutingSettings | null> {
  const [row] = await em.execute<StoredRoutingSettings[]>(
    'select decline_actions, code_actions, updated_at from merchant_routing_settings where merchant_id = ?',
    [merchantId],
  );
  return row ?? null;
}

/** Saves the merchant's decline table (one upsert). */
export async function saveRoutingSettings(
  em: EntityManager,
  merchantId: string,
  actions: { declineActions: Record<string, DeclineAction>; codeActions: Record<string, DeclineAction> },
): Promise<void> {
  await em.execute(
    `insert into merchant_routing_settings (merchant_id, decline_actions, code_actions, updated_at)
     values (?, ?::jsonb, ?::jsonb, now())
     on conflict (merchant_id) do update set decline_actions = excluded.decline_actions,
       code_actions = excluded.code_actions, updated_at = now()`,
    [merchantId, JSON.stringify(actions.declineActions), JSON.stringify(actions.codeActions)],
  );
}

/**
 * Everything the routing engine reads for one charge (or one simulation), in one statement: the profile, its
 * nodes, the connectors they name with their providers' capabilities and circuits, and the merchant's decline
 * table. Six reads were six round trips before the first provider call of every charge.
 */
export type ProfileSelector = { profileId: string } | { paymentMethod: string };

export type RoutingNodeRow = Omit<RoutingNode, 'createdAt' | 'updatedAt'>;

export interface RoutingConnectorRow extends Pick<
  MerchantConnector,
  'id' | 'name' | 'providerSlug' | 'isActive' | 'isTestMode'
> {
  config: ConnectorConfig | null;
  /** Its provider's capabilities; null: the provider is missing from the catalog (the connector takes nothing). */
  provider: Pick<PaymentProvider, 'supportedCardBrands' | 'supportedPaymentMethods' | 'supportedCurrencies'> | null;
  /** Its connector_health row (snake_case, as the health repository maps it); null: never failed. */
  health: {
    connector_id: string;
    state: 'closed' | 'open' | 'half_open';
    consecutive_failures: number;
    opened_at: string | null;
    next_probe_at: string | null;
    last_failure_at: string | null;
    last_failure_code: string | null;
  } | null;
}

export interface RoutingSettingsRow {
  decline_actions: Record<string, string>;
  code_actions: Record<string, string>;
  updated_at: string;
}

export interface RoutingRows {
  profile: RoutingProfile | null;
  nodes: RoutingNodeRow[];
  connectors: RoutingConnectorRow[];
  settings: RoutingSettingsRow | null;
  /** The charge's customer is on a test clock (its charge is a test charge); false without a customer. */
  customerOnTestClock: boolean;
}

/** By id (any state), or the active profile of a payment method: the exact method first, then the `*` catch-all. */
const PROFILE_BY_ID = 'id = ? and merchant_id = ?';
const ACTIVE_PROFILE_OF_METHOD = `merchant_id = ? and is_active and payment_method in (?, '*')
  order by payment_method = '*'`;

export async function readRoutingRows(
  em: EntityManager,
  merchantId: string,
  selector: ProfileSelector,
  customerId: string | null = null,
): Promise<RoutingRows> {
  const profileFilter = 'profileId' in selector ? PROFILE_BY_ID : ACTIVE_PROFILE_OF_METHOD;
  const profileParams =
    'profileId' in selector ? [selector.profileId, merchantId] : [merchantId, selector.paymentMethod];
  const [row] = await em.execute<
    Array<{
      profile: (Omit<RoutingProfile, 'createdAt' | 'updatedAt'> & { createdAt: string; updatedAt: string }) | null;
      nodes: RoutingNodeRow[];
      connectors: RoutingConnectorRow[];
      settings: RoutingSettingsRow | null;
      customer_on_test_clock: boolean;
    }>
  >(
    `with profile as (
       select * from routing_profiles where ${profileFilter} limit 1
     ),
     nodes as (
       select * from routing_nodes where routing_profile_id = (select id from profile)
     )
     select
       (select json_build_object('id', id, 'merchantId', merchant_id, 'name', name, 'isActive', is_active,
                 'version', version, 'paymentMethod', payment_method,
                 'defaultMerchantConnectorId', default_merchant_connector_id, 'optimize', optimize,
                 'createdAt', created_at, 'updatedAt', updated_at)
          from profile) as profile,
       (select coalesce(json_agg(json_build_object('id', id, 'routingProfileId', routing_profile_id,
                 'parentNodeId', parent_node_id, 'branch', branch, 'position', position, 'nodeType', node_type,
                 'conditionField', condition_field, 'conditionOperator', condition_operator,
                 'conditionValue', condition_value, 'merchantConnectorId', merchant_connector_id,
                 'require3ds', require_3ds, 'isActive', is_active)), '[]')
          from nodes) as nodes,
       (select coalesce(json_agg(json_build_object('id', c.id, 'name', c.name, 'providerSlug', c.provider_slug,
                 'isActive', c.is_active, 'isTestMode', c.is_test_mode, 'config', c.config,
                 'provider', case when p.slug is null then null else json_build_object(
                   'supportedCardBrands', p.supported_card_brands,
                   'supportedPaymentMethods', p.supported_payment_methods,
                   'supportedCurrencies', p.supported_currencies) end,
                 'health', case when h.connector_id is null then null else to_json(h) end)), '[]')
          from merchant_connectors c
          left join payment_providers p on p.slug = c.provider_slug
          left join connector_health h on h.connector_id = c.id
         where c.merchant_id = ?
           and (c.id = (select default_merchant_connector_id from profile)
                or c.id in (select merchant_connector_id from nodes))) as connectors,
       (select to_json(s) from (select decline_actions, code_actions, updated_at
                                  from merchant_routing_settings where merchant_id = ?) s) as settings,
       exists(select 1 from customers
               where id = ? and merchant_id = ? and test_clock_id is not null) as customer_on_test_clock`,
    [...profileParams, merchantId, merchantId, customerId, merchantId],
  );
  const profile = row.profile && {
    ...row.profile,
    createdAt: new Date(row.profile.createdAt),
    updatedAt: new Date(row.profile.updatedAt),
  };
  return {
    profile,
    nodes: row.nodes,
    connectors: row.connectors,
    settings: row.settings,
    customerOnTestClock: row.customer_on_test_clock,
  };
}

/** The merchant has an active routing profile for this payment method (exact or the `*` catch-all). */
export async function hasActiveProfile(em: EntityManager, merchantId: string, paymentMethod: string): Promise<boolean> {
  const [row] = await em.execute<Array<{ found: boolean }>>(
    `select exists(select 1 from routing_profiles where ${ACTIVE_PROFILE_OF_METHOD}) as found`,
    [merchantId, paymentMethod],
  );
  return row.found;
}
