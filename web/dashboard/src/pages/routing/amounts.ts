/** Amount conditions of the routing tree as money (no import of the API layer: the unit tests read this file). */
import { money } from '../../format';

/** What a condition's text reads of a routing node. */
export interface ConditionNode {
  id: string;
  parent_node_id: string | null;
  branch: string | null;
  condition_field: string | null;
  condition_operator: string | null;
  condition_value: unknown;
}

export const showValue = (value: unknown) => JSON.stringify(value);

/** The currency a node's charges are in when a condition above it pins one (the then-branch of "Currency is BRL"). */
export function pinnedCurrency(node: ConditionNode, byId: Map<string, ConditionNode>): string | null {
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
export function conditionValueText(node: ConditionNode, byId: Map<string, ConditionNode>): string {
  const value = node.condition_value;
  if (node.condition_field !== 'amount') return showValue(value);
  const amounts = Array.isArray(value) ? value : [value];
  if (!amounts.every((amount) => typeof amount === 'number')) return showValue(value);
  const currency = pinnedCurrency(node, byId);
  const shown = (amount: number) =>
    currency ? money(amount, currency) : `${amount} minor units (${money(amount, 'BRL')} in BRL)`;
  return amounts.map(shown).join(', ');
}
