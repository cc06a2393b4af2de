import { Type } from '@sinclair/typebox';
import { defineRoute } from '../../http/define-route';
import type { Pagination } from '../../http/pagination';
import { NoQuery, ProfileParams } from './routing-profiles.schema';
import { CreateNodeBody, NodeObject, NodeParams, ReorderBody, UpdateNodeBody } from './routing-nodes.schema';
import { presentNode } from './routing-nodes.presenter';
import { connectorNamesOf, createNode, deleteNode, listNodes, reorderNodes, updateNode } from './routing-nodes.service';
import { routingRead, routingWrite } from './routing-profiles.routes';
import { routingContext } from './routing-profiles.service';

const tags = ['Routing nodes'];
const base = '/merchants/:merchant_id/routing-profiles/:profile_id';

/** Every node of a list on one page: limit is the item count (at least 1, so the object stays well-formed). */
const onePage = (total: number): Pagination => ({
  page: 1,
  limit: Math.max(total, 1),
  total,
  total_pages: total > 0 ? 1 : 0,
  has_next: false,
  has_prev: false,
});

export const routingNodeRoutes = [
  defineRoute({
    method: 'get',
    path: `${base}/nodes`,
    summary:
      'The whole tree on one page, in evaluation order (depth-first: a condition, its then-branch, then its else-branch)',
    tags,
    auth: routingRead,
    params: ProfileParams,
    query: NoQuery,
    responses: { 200: Type.Array(NodeObject) },
    envelope: 'bare',
    pagination: 'flat',
    async handler({ em, merchantId, params }) {
      const { nodes, names } = await listNodes(em, merchantId, params.profile_id);
      return { status: 200, data: nodes.map((node) => presentNode(node, names)), pagination: onePage(nodes.length) };
    },
  }),
  defineRoute({
    method: 'post',
    path: `${base}/nodes`,
    summary: 'Add a condition or action node; an occupied position shifts the later siblings',
    tags,
    auth: routingWrite,
    params: ProfileParams,
    query: NoQuery,
    body: CreateNodeBody,
    responses: { 201: NodeObject },
    envelope: 'bare',
    idempotency: 'optional',
    async handler(input) {
      const ctx = await routingContext(input);
      const { params, body } = input;
      const node = await createNode(ctx, params.profile_id, body);
      return { status: 201, data: presentNode(node, await connectorNamesOf(ctx.em, [node])) };
    },
  }),
  // Declared before /nodes/:node_id so "reorder" is never read as a node id.
  defineRoute({
    method: 'patch',
    path: `${base}/nodes/reorder`,
    summary:
      'Reorder one sibling list; ordered_node_ids must be exactly the current siblings. Returns them in the new order',
    tags,
    auth: routingWrite,
    params: ProfileParams,
    query: NoQuery,
    body: ReorderBody,
    responses: { 200: Type.Array(NodeObject) },
    envelope: 'bare',
    pagination: 'flat',
    async handler(input) {
      const ctx = await routingContext(input);
      const { params, body } = input;
      const { siblings, names } = await reorderNodes(ctx, params.profile_id, body);
      return {
        status: 200,
        data: siblings.map((node) => presentNode(node, names)),
        pagination: onePage(siblings.length),
      };
    },
  }),
  defineRoute({
    method: 'patch',
    path: `${base}/nodes/:node_id`,
    summary:
      "Update a node's content (condition, connector, require_3ds, is_active); its place changes through reorder",
    tags,
    auth: routingWrite,
    params: NodeParams,
    query: NoQuery,
    body: UpdateNodeBody,
    responses: { 200: NodeObject },
    envelope: 'bare',
    async handler(input) {
      const ctx = await routingContext(input);
      const { params, body } = input;
      const node = await updateNode(ctx, params.profile_id, params.node_id, body);
      return { status: 200, data: presentNode(node, await connectorNamesOf(ctx.em, [node])) };
    },
  }),
  defineRoute({
    method: 'delete',
    path: `${base}/nodes/:node_id`,
    summary: 'Delete a node and its subtree; later siblings move up',
    tags,
    auth: routingWrite,
    params: NodeParams,
    query: NoQuery,
    responses: { 204: null },
    envelope: 'bare',
    async handler(input) {
      const ctx = await routingContext(input);
      const { params } = input;
      await deleteNode(ctx, params.profile_id, params.node_id);
      return { status: 204 };
    },
  }),
];
