/**
 * From database rows to the engine's input (pure: no I/O). The tree is rebuilt from parent_node_id, branch and
 * position; connector states combine the connector's own switch and config with the provider catalog.
 */
import type { MerchantConnector, PaymentProvider, RoutingNode, RoutingProfile } from '../../db/entities';
import type { ConnectorState, ProgramNode, RoutingProgram } from './routing.evaluate';
import { supportsThreeDs } from '../connectors/registry';

type NodeRow = Pick<RoutingNode, 'id' | 'parentNodeId' | 'branch' | 'position'>;

/** Children of each (parent, branch), by position. The root list is keyed by parent null. */
function childrenIndex<T extends NodeRow>(rows: readonly T[]): Map<string, T[]> {
  const index = new Map<string, T[]>();
  for (const row of rows) {
    const key = siblingKey(row.parentNodeId, row.branch);
    const list = index.get(key);
    if (list) list.push(row);
    else index.set(key, [row]);
  }
  for (const list of index.values()) list.sort((a, b) => a.position - b.position || a.id.localeCompare(b.id));
  return index;
}

export const siblingKey = (parentNodeId: string | null, branch: string | null): string =>
  parentNodeId === null ? 'root' : `${parentNodeId}:${branch}`;

/**
 * Rows in evaluation order: each root by position and, after a condition node, its then-branch subtree
 * followed by its else-branch subtree. Also the order of the fallback chain.
 */
export function evaluationOrder<T extends NodeRow>(rows: readonly T[]): T[] {
  const index = childrenIndex(rows);
  const out: T[] = [];
  const seen = new Set<string>();
  const visit = (key: string) => {
    for (const row of index.get(key) ?? []) {
      if (seen.has(row.id)) continue;
      seen.add(row.id);
      out.push(row);
      visit(siblingKey(row.id, 'then'));
      visit(siblingKey(row.id, 'else'));
    }
  };
  visit('root');
  return out;
}

type ProgramRow = Pick<
  RoutingNode,
  | 'id'
  | 'parentNodeId'
  | 'branch'
  | 'position'
  | 'nodeType'
  | 'isActive'
  | 'conditionField'
  | 'conditionOperator'
  | 'conditionValue'
  | 'merchantConnectorId'
  | 'require3ds'
>;

export function buildProgram(
  profile: Pick<RoutingProfile, 'defaultMerchantConnectorId'>,
  rows: readonly ProgramRow[],
): RoutingProgram {
  const index = childrenIndex(rows);
  const build = (key: string, depth: number): ProgramNode[] =>
    depth > 64
      ? []
      : (index.get(key) ?? []).map((row): ProgramNode => {
          if (row.nodeType === 'action') {
            return {
              kind: 'action',
              id: row.id,
              isActive: row.isActive,
              connectorId: row.merchantConnectorId as string,
              require3ds: row.require3ds,
            };
          }
          return {
            kind: 'condition',
            id: row.id,
            isActive: row.isActive,
            field: row.conditionField as NonNullable<ProgramRow['conditionField']>,
            operator: row.conditionOperator as NonNullable<ProgramRow['conditionOperator']>,
            value: row.conditionValue,
            then: build(siblingKey(row.id, 'then'), depth + 1),
            else: build(siblingKey(row.id, 'else'), depth + 1),
          };
        });
  return { nodes: build('root', 0), defaultConnectorId: profile.defaultMerchantConnectorId };
}

/**
 * What a connector can take. config.card_brands narrows the provider's brands (an empty or absent list means
 * the provider's defaults); it can never add a brand the provider doesn't support.
 */
export function connectorState(
  connector: Pick<MerchantConnector, 'isActive' | 'isTestMode' | 'providerSlug' | 'config'>,
  provider:
    Pick<PaymentProvider, 'supportedCardBrands' | 'supportedPaymentMethods' | 'supportedCurrencies'> | undefined,
): ConnectorState {
  const providerBrands = (provider?.supportedCardBrands ?? []).map((brand) => brand.toLowerCase());
  const override = connector.config?.card_brands?.map((brand) => brand.toLowerCase()) ?? [];
  return {
    isActive: connector.isActive,
    isTestMode: connector.isTestMode,
    providerSlug: connector.providerSlug,
    cardBrands: override.length > 0 ? override.filter((brand) => providerBrands.includes(brand)) : providerBrands,
    paymentMethods: [...(provider?.supportedPaymentMethods ?? [])],
    currencies: (provider?.supportedCurrencies ?? []).map((currency) => currency.toUpperCase()),
    supportsThreeDs: supportsThreeDs(connector.providerSlug),
  };
}
