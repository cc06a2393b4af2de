/**
 * Routing-node rules of Document 3: a tree of condition nodes (then/else branches) and action nodes (a
 * connector and require_3ds), positions 0-based and contiguous among siblings. Every change locks the profile
 * row first, so concurrent edits of one tree serialize (the sibling-position constraint is deferred to
 * commit and would otherwise only fail there), bumps the profile's version and records an activity.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Static } from '@sinclair/typebox';
import {
  MerchantConnectorSchema,
  RoutingNodeSchema,
  type RoutingNode,
  type RoutingProfile,
} from '../../../db/entities';
import { errors, type FieldErrors } from '../../../domain/platform/errors';
import { newId } from '../../../domain/platform/ids';
import { diff } from '../../../domain/merchants/merchants.activity';
import { evaluationOrder } from '../../../domain/routing/routing.program';
import { catalogCardBrands } from '../../../db/repositories/payment-providers.repository';
import { checkCondition } from './routing-nodes.rules';
import type { CreateNodeBody, ReorderBody, UpdateNodeBody } from './routing-nodes.schema';
import { bumpVersion, getProfile, record, requireConnector, type RoutingContext } from './routing-profiles.service';

type CreateInput = Static<typeof CreateNodeBody>;
type UpdateInput = Static<typeof UpdateNodeBody>;
type ReorderInput = Static<typeof ReorderBody>;

/** Bounds that keep a tree readable on one page and its evaluation cheap on every charge. */
export const MAX_NODES_PER_PROFILE = 200;
export const MAX_CONDITION_DEPTH = 16;

class Problems {
  readonly details: FieldErrors = {};
  add(field: string, message: string): void {
    (this.details[field] ??= []).push(message);
  }
  throwIfAny(message = 'The routing node is not valid'): void {
    if (Object.keys(this.details).length > 0) throw errors.validation(this.details, message, 'INVALID_VALUE');
  }
}

interface Tree {
  profile: RoutingProfile;
  nodes: RoutingNode[];
}

async function loadTree(em: EntityManager, merchantId: string, profileId: string, lock: boolean): Promise<Tree> {
  const profile = await getProfile(em, merchantId, profileId, lock);
  const nodes = await em.find(RoutingNodeSchema, { routingProfileId: profile.id }, lock ? { refresh: true } : {});
  return { profile, nodes };
}

const siblingsOf = (nodes: RoutingNode[], parentNodeId: string | null, branch: string | null) =>
  nodes
    .filter((node) => node.parentNodeId === parentNodeId && (parentNodeId === null || node.branch === branch))
    .sort((a, b) => a.position - b.position);

function subtree(nodes: RoutingNode[], root: RoutingNode): RoutingNode[] {
  const out = [root];
  for (let i = 0; i < out.length; i += 1) out.push(...nodes.filter((node) => node.parentNodeId === out[i].id));
  return out;
}

/** Number of condition ancestors of a node placed under `parentId`. */
function depthUnder(nodes: RoutingNode[], parentId: string | null): number {
  let depth = 0;
  for (let id = parentId; id !== null; depth += 1) id = nodes.find((node) => node.id === id)?.parentNodeId ?? null;
  return depth;
}

function findNode(tree: Tree, nodeId: string): RoutingNode {
  const node = tree.nodes.find((candidate) => candidate.id === nodeId);
  if (!node) throw errors.notFound('No such routing node');
  return node;
}

/** Display names of the connectors the given nodes name. */
export async function connectorNamesOf(em: EntityManager, nodes: RoutingNode[]): Promise<Map<string, string>> {
  const ids = [...new Set(nodes.map((node) => node.merchantConnectorId).filter((id): id is string => id !== null))];
  if (ids.length === 0) return new Map();
  const connectors = await em.find(MerchantConnectorSchema, { id: { $in: ids } });
  return new Map(connectors.map((connector) => [connector.id, connector.name]));
}

/** Where a node may go: a condition node of this profile as parent (with a branch), or the root (without). */
function checkPlacement(tree: Tree, parentNodeId: string | null, branch: string | null, problems: Problems): void {
  if (parentNodeId === null) {
    if (branch !== null) problems.add('branch', 'is only allowed with parent_node_id (root nodes have no branch)');
    return;
  }
  if (branch === null) problems.add('branch', 'is required when parent_node_id is set (then or else)');
  const parent = tree.nodes.find((node) => node.id === parentNodeId);
  if (!parent) problems.add('parent_node_id', 'must be a node of this routing profile');
  else if (parent.nodeType !== 'condition')
    problems.add('parent_node_id', 'must be a condition node (action nodes have no children)');
}

const nodeSnapshot = (node: RoutingNode): Record<string, unknown> => ({
  condition_field: node.conditionField,
  condition_operator: node.conditionOperator,
  condition_value: node.conditionValue,
  merchant_connector_id: node.merchantConnectorId,
  require_3ds: node.require3ds,
  is_active: node.isActive,
});

export async function listNodes(
  em: EntityManager,
  merchantId: string,
  profileId: string,
): Promise<{ nodes: RoutingNode[]; names: Map<string, string> }> {
  const tree = await loadTree(em, merchantId, profileId, false);
  return { nodes: evaluationOrder(tree.nodes), names: await connectorNamesOf(em, tree.nodes) };
}

export async function createNode(ctx: RoutingContext, profileId: string, input: CreateInput): Promise<RoutingNode> {
  const tree = await loadTree(ctx.em, ctx.merchantId, profileId, true);
  const problems = new Problems();
  const parentNodeId = input.parent_node_id ?? null;
  const branch = input.branch ?? null;
  checkPlacement(tree, parentNodeId, branch, problems);
  if (tree.nodes.length >= MAX_NODES_PER_PROFILE)
    problems.add('routing_profile_id', `already has the maximum of ${MAX_NODES_PER_PROFILE} nodes`);
  if (input.node_type === 'condition' && depthUnder(tree.nodes, parentNodeId) >= MAX_CONDITION_DEPTH) {
    problems.add('parent_node_id', `would nest conditions deeper than ${MAX_CONDITION_DEPTH} levels`);
  }
  const siblings =
    problems.details.parent_node_id || problems.details.branch ? [] : siblingsOf(tree.nodes, parentNodeId, branch);
  if (input.position > siblings.length)
    problems.add('position', `must be between 0 and ${siblings.length} (the number of siblings)`);

  let condition: { field: RoutingNode['conditionField']; operator: RoutingNode['conditionOperator']; value: unknown } =
    { field: null, operator: null, value: null };
  if (input.node_type === 'condition') {
    for (const field of ['merchant_connector_id', 'require_3ds'] as const) {
      if (input[field] !== undefined && input[field] !== null)
        problems.add(field, 'is not allowed for condition nodes');
    }
    if (!input.condition_field) problems.add('condition_field', 'is required for condition nodes');
    if (!input.condition_operator) problems.add('condition_operator', 'is required for condition nodes');
    if (input.condition_field && input.condition_operator) {
      const brands = input.condition_field === 'card_brand' ? await catalogCardBrands(ctx.em) : new Set<string>();
      const checked = checkCondition(
        { field: input.condition_field, operator: input.condition_operator, value: input.condition_value },
        brands,
      );
      if (checked.ok)
        condition = { field: input.condition_field, operator: input.condition_operator, value: checked.value };
      else problems.add(checked.field, checked.message);
    }
  } else {
    for (const field of ['condition_field', 'condition_operator', 'condition_value'] as const) {
      if (input[field] !== undefined && input[field] !== null) problems.add(field, 'is not allowed for action nodes');
    }
    if (!input.merchant_connector_id) problems.add('merchant_connector_id', 'is required for action nodes');
    else if (
      !(await ctx.em.count(MerchantConnectorSchema, { id: input.merchant_connector_id, merchantId: ctx.merchantId }))
    ) {
      problems.add('merchant_connector_id', 'must be a connector of this merchant');
    }
  }
  problems.throwIfAny();

  for (const sibling of siblings) if (sibling.position >= input.position) sibling.position += 1;
  const node = ctx.em.create(RoutingNodeSchema, {
    id: newId('rn'),
    routingProfileId: tree.profile.id,
    parentNodeId,
    branch: branch,
    position: input.position,
    nodeType: input.node_type,
    conditionField: condition.field,
    conditionOperator: condition.operator,
    conditionValue: condition.value,
    merchantConnectorId: input.node_type === 'action' ? (input.merchant_connector_id as string) : null,
    require3ds: (input.node_type === 'action' ? input.require_3ds : null) ?? 'never',
    isActive: input.is_active ?? true,
  } as RoutingNode);
  bumpVersion(tree.profile);
  record(ctx, 'routing_node.created', {
    routing_profile_id: tree.profile.id,
    routing_node_id: node.id,
    node_type: node.nodeType,
    parent_node_id: parentNodeId,
    branch,
    position: node.position,
    ...nodeSnapshot(node),
    version: tree.profile.version,
  });
  await ctx.em.flush();
  return node;
}

/** Content changes only; fields of the other node type are refused, and the resulting condition is re-checked whole. */
export async function updateNode(
  ctx: RoutingContext,
  profileId: string,
  nodeId: string,
  input: UpdateInput,
): Promise<RoutingNode> {
  const tree = await loadTree(ctx.em, ctx.merchantId, profileId, true);
  const node = findNode(tree, nodeId);
  const before = nodeSnapshot(node);
  const problems = new Problems();
  if (node.nodeType === 'action') {
    for (const field of ['condition_field', 'condition_operator', 'condition_value'] as const) {
      if (input[field] !== undefined && input[field] !== null) problems.add(field, 'is not allowed for action nodes');
    }
    if (input.merchant_connector_id === null)
      problems.add('merchant_connector_id', 'cannot be null for an action node');
    if (input.require_3ds === null) problems.add('require_3ds', 'cannot be null for an action node');
    problems.throwIfAny();
    if (input.merchant_connector_id) {
      await requireConnector(ctx.em, ctx.merchantId, input.merchant_connector_id, 'merchant_connector_id');
      node.merchantConnectorId = input.merchant_connector_id;
    }
    if (input.require_3ds) node.require3ds = input.require_3ds;
  } else {
    for (const field of ['merchant_connector_id', 'require_3ds'] as const) {
      if (input[field] !== undefined && input[field] !== null)
        problems.add(field, 'is not allowed for condition nodes');
    }
    for (const field of ['condition_field', 'condition_operator', 'condition_value'] as const) {
      if (input[field] === null) problems.add(field, 'cannot be null for a condition node');
    }
    problems.throwIfAny();
    const touched =
      input.condition_field !== undefined ||
      input.condition_operator !== undefined ||
      input.condition_value !== undefined;
    if (touched) {
      const field = input.condition_field ?? node.conditionField;
      const brands = field === 'card_brand' ? await catalogCardBrands(ctx.em) : new Set<string>();
      const merged = {
        field: field as NonNullable<RoutingNode['conditionField']>,
        operator: (input.condition_operator ?? node.conditionOperator) as NonNullable<RoutingNode['conditionOperator']>,
        value: input.condition_value !== undefined ? input.condition_value : node.conditionValue,
      };
      const checked = checkCondition(merged, brands);
      if (!checked.ok) {
        problems.add(checked.field, checked.message);
        problems.throwIfAny();
      } else {
        node.conditionField = merged.field;
        node.conditionOperator = merged.operator;
        node.conditionValue = checked.value;
      }
    }
  }
  if (input.is_active !== undefined) node.isActive = input.is_active;
  const changes = diff(before, nodeSnapshot(node));
  if (Object.keys(changes).length === 0) return node;
  bumpVersion(tree.profile);
  record(ctx, 'routing_node.updated', {
    routing_profile_id: tree.profile.id,
    routing_node_id: node.id,
    ...changes,
    version: tree.profile.version,
  });
  await ctx.em.flush();
  return node;
}

/** Deletes the node with its whole subtree (a condition takes its branches along) and closes the gap among its siblings. */
export async function deleteNode(ctx: RoutingContext, profileId: string, nodeId: string): Promise<void> {
  const tree = await loadTree(ctx.em, ctx.merchantId, profileId, true);
  const node = findNode(tree, nodeId);
  const removed = subtree(tree.nodes, node);
  for (const sibling of siblingsOf(tree.nodes, node.parentNodeId, node.branch)) {
    if (sibling.position > node.position) sibling.position -= 1;
  }
  for (const gone of removed) ctx.em.remove(gone);
  bumpVersion(tree.profile);
  record(ctx, 'routing_node.deleted', {
    routing_profile_id: tree.profile.id,
    routing_node_id: node.id,
    deleted_node_ids: removed.map((gone) => gone.id),
    version: tree.profile.version,
  });
  await ctx.em.flush();
}

/** ordered_node_ids must be exactly the current sibling list of (parent, branch): same ids, each once. */
export async function reorderNodes(
  ctx: RoutingContext,
  profileId: string,
  input: ReorderInput,
): Promise<{ siblings: RoutingNode[]; names: Map<string, string> }> {
  const tree = await loadTree(ctx.em, ctx.merchantId, profileId, true);
  const parentNodeId = input.parent_node_id ?? null;
  const branch = input.branch ?? null;
  const problems = new Problems();
  checkPlacement(tree, parentNodeId, branch, problems);
  problems.throwIfAny('The sibling list is not valid');

  const siblings = siblingsOf(tree.nodes, parentNodeId, branch);
  const requested = input.ordered_node_ids;
  const current = new Set(siblings.map((node) => node.id));
  if (new Set(requested).size !== requested.length) problems.add('ordered_node_ids', 'must not repeat an id');
  const unknown = requested.filter((id) => !current.has(id));
  const missing = siblings.filter((node) => !requested.includes(node.id)).map((node) => node.id);
  if (unknown.length > 0)
    problems.add('ordered_node_ids', `contains ids that are not siblings here: ${unknown.join(', ')}`);
  if (missing.length > 0) problems.add('ordered_node_ids', `is missing current siblings: ${missing.join(', ')}`);
  problems.throwIfAny('ordered_node_ids must be the complete current sibling list');

  const before = siblings.map((node) => node.id);
  const ordered = requested.map((id) => siblings.find((node) => node.id === id) as RoutingNode);
  ordered.forEach((node, index) => {
    node.position = index;
  });
  if (before.join() !== requested.join()) {
    bumpVersion(tree.profile);
    record(ctx, 'routing_node.reordered', {
      routing_profile_id: tree.profile.id,
      parent_node_id: parentNodeId,
      branch,
      from: before,
      to: requested,
      version: tree.profile.version,
    });
    await ctx.em.flush();
  }
  return { siblings: ordered, names: await connectorNamesOf(ctx.em, ordered) };
}
