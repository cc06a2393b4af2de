/** The routing pages' shapes from the API, the payment-method names, and what every tree edit needs. */
import type { Item } from '../../api';
import { label, money } from '../../format';

export type Profile = Item<'getMerchantRoutingProfiles'>;

export type RoutingNode = Item<'getMerchantRoutingProfilesProfileIdNodes'>;

export type ConnectorOption = Item<'getMerchantConnectors'>;

export const METHODS = ['*', 'credit_card', 'debit_card', 'pix', 'boleto', 'wallet'];

export const methodName = (method: string) => (method === '*' ? 'Every method (*)' : label(method));

export const showValue = (value: unknown) => JSON.stringify(value);

/** The currency a node's charges are in when a condition above it pins one (the then-branch of "Currency is BRL"). */
export function pinnedCurrency(node: RoutingNode, byId: Map<string, RoutingNode>): string | null {
  let child = node;
  for (let parent = byId.get(child.parent_node_id ?? ''); parent; parent = byId.get(parent.parent_node_id ?? '')) {
    const value = parent.condition_value;
    if (parent.condition_field === 'currency' && child.branch === 'then') {
      if (parent.condition_operator === 'eq' && typeof value === 'string') return value;
      if (parent.condition_operator === 'in' && Array.isArray(value) && value.length === 1) return String(value[0]);
    }
    child = parent;
  }
  return null;
}

/**
 * An amount condition's value as money: amounts are minor units of the charge's currency, so a currency pinned above
 * the node formats it; otherwise the minor units are shown with what they mean in BRL (the simulator's default).
 */
export function conditionValueText(node: RoutingNode, byId: Map<string, RoutingNode>): string {
  const value = node.condition_value;
  if (node.condition_field !== 'amount') return showValue(value);
  const amounts = Array.isArray(value) ? value : [value];
  if (!amounts.every((amount) => typeof amount === 'number')) return showValue(value);
  const currency = pinnedCurrency(node, byId);
  const shown = (amount: number) =>
    currency ? money(amount, currency) : `${amount} minor units (${money(amount, 'BRL')} in BRL)`;
  return amounts.map(shown).join(', ');
}

/** What every tree edit needs: the profile's base path, the connectors to pick from, and a reload after a change. */
export interface TreeContext {
  base: string;
  connectors: ConnectorOption[];
  index: Map<string, RoutingNode[]>;
  /** Every node by id (a condition's value reads the conditions above it). */
  byId: Map<string, RoutingNode>;
  manage: boolean;
  changed: (message: string) => void;
  failed: (error: unknown) => void;
}
