/**
 * Document 3's Routing node shape. Fields that don't apply to a node's type are null: condition_* on actions,
 * merchant_connector_id / connector_name / require_3ds on conditions.
 */
import type { RoutingNode } from '../../../db/entities';

export function presentNode(node: RoutingNode, connectorNames: ReadonlyMap<string, string>) {
  const isAction = node.nodeType === 'action';
  return {
    id: node.id,
    routing_profile_id: node.routingProfileId,
    parent_node_id: node.parentNodeId,
    branch: node.branch,
    position: node.position,
    node_type: node.nodeType,
    condition_field: isAction ? null : node.conditionField,
    condition_operator: isAction ? null : node.conditionOperator,
    condition_value: isAction ? null : (node.conditionValue ?? null),
    merchant_connector_id: isAction ? node.merchantConnectorId : null,
    connector_name:
      isAction && node.merchantConnectorId ? (connectorNames.get(node.merchantConnectorId) ?? null) : null,
    require_3ds: isAction ? node.require3ds : null,
    is_active: node.isActive,
    created_at: node.createdAt.toISOString(),
    updated_at: node.updatedAt.toISOString(),
  };
}
