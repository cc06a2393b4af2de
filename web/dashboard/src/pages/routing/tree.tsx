/** A profile's routing tree as nested sibling lists: each node with its move, switch-off and remove controls. */
import { useState } from 'preact/hooks';
import { call } from '../../api';
import { label } from '../../format';
import { Chip } from '../../ui';
import { type RoutingNode, type TreeContext } from './model';
import { conditionValueText } from './amounts';
import { AddNode, OPERATORS, ConditionForm } from './node-forms';

export const listKey = (parent: string | null, branch: string | null) => (parent ? `${parent}:${branch}` : 'root');

/** The flat node list as sibling lists by (parent, branch), each by position. */
export function siblingsIndex(nodes: RoutingNode[]): Map<string, RoutingNode[]> {
  const index = new Map<string, RoutingNode[]>();
  for (const node of nodes) {
    const key = listKey(node.parent_node_id, node.branch);
    index.set(key, [...(index.get(key) ?? []), node]);
  }
  for (const list of index.values()) list.sort((a, b) => a.position - b.position);
  return index;
}

/** One sibling list (the root, or a condition's then/else branch) with its nodes and the add controls. */
export function SiblingList(props: { tree: TreeContext; parent: RoutingNode | null; branch: 'then' | 'else' | null }) {
  const { tree, parent, branch } = props;
  const siblings = tree.index.get(listKey(parent?.id ?? null, branch)) ?? [];
  const where = parent
    ? `${branch === 'then' ? 'then' : 'otherwise'} of “${conditionText(parent, tree.byId)}”`
    : 'top level';
  return (
    <div class={parent ? 'tree-branch' : undefined}>
      {parent && <p class="meta">{branch === 'then' ? 'Then:' : 'Otherwise:'}</p>}
      {siblings.length === 0 && <p class="hint">No connector here.</p>}
      <ol class="tree-list" aria-label={`Routing nodes, ${where}`}>
        {siblings.map((node, at) => (
          <li key={node.id} data-node={node.id}>
            <NodeView tree={tree} node={node} siblings={siblings} at={at} />
          </li>
        ))}
      </ol>
      {tree.manage && <AddNode tree={tree} parent={parent} branch={branch} position={siblings.length} where={where} />}
    </div>
  );
}

const conditionText = (node: RoutingNode, byId: Map<string, RoutingNode>) =>
  `${label(node.condition_field)} ${OPERATORS[node.condition_operator ?? ''] ?? node.condition_operator} ${conditionValueText(node, byId)}`;

function NodeView(props: { tree: TreeContext; node: RoutingNode; siblings: RoutingNode[]; at: number }) {
  const { tree, node, siblings, at } = props;
  const [editing, setEditing] = useState(false);
  const [busy, setBusy] = useState(false);
  const run = (work: Promise<unknown>, message: string) => {
    setBusy(true);
    work.then(
      () => (setBusy(false), tree.changed(message)),
      (failure: unknown) => (setBusy(false), tree.failed(failure)),
    );
  };
  const title =
    node.node_type === 'action'
      ? (node.connector_name ?? node.merchant_connector_id ?? '?')
      : conditionText(node, tree.byId);
  const move = (by: number) => {
    const ids = siblings.map((s) => s.id);
    [ids[at], ids[at + by]] = [ids[at + by], ids[at]];
    run(
      call('PATCH', `${tree.base}/nodes/reorder`, {
        parent_node_id: node.parent_node_id,
        branch: node.branch,
        ordered_node_ids: ids,
      }),
      `${title} moved ${by < 0 ? 'up' : 'down'}.`,
    );
  };
  return (
    <>
      <div class="tree-node-head">
        {node.node_type === 'action' ? (
          <span>
            <strong>{title}</strong>
            {node.require_3ds && node.require_3ds !== 'never' && (
              <span class="meta"> · 3-D Secure {label(node.require_3ds)}</span>
            )}
          </span>
        ) : (
          <span>
            <strong>If</strong> {title}
          </span>
        )}
        {!node.is_active && <Chip status="expired" text="Switched off" />}
        {tree.manage && (
          <div class="button-row">
            <button
              type="button"
              class="secondary small"
              disabled={busy || at === 0}
              aria-label={`Move ${title} up`}
              onClick={() => move(-1)}
            >
              ↑
            </button>
            <button
              type="button"
              class="secondary small"
              disabled={busy || at === siblings.length - 1}
              aria-label={`Move ${title} down`}
              onClick={() => move(1)}
            >
              ↓
            </button>
            {node.node_type === 'condition' && (
              <button type="button" class="secondary small" disabled={busy} onClick={() => setEditing(!editing)}>
                {editing ? 'Close' : 'Edit condition'}
              </button>
            )}
            <button
              type="button"
              class="secondary small"
              disabled={busy}
              onClick={() =>
                run(
                  call('PATCH', `${tree.base}/nodes/${node.id}`, { is_active: !node.is_active }),
                  `${title} switched ${node.is_active ? 'off' : 'on'}.`,
                )
              }
            >
              {node.is_active ? 'Switch off' : 'Switch on'}
            </button>
            <button
              type="button"
              class="secondary small"
              disabled={busy}
              aria-label={`Remove ${title}`}
              onClick={() => run(call('DELETE', `${tree.base}/nodes/${node.id}`), `${title} removed.`)}
            >
              Remove
            </button>
          </div>
        )}
      </div>
      {editing && (
        <ConditionForm
          initial={node}
          submitText="Save condition"
          save={(condition) =>
            call('PATCH', `${tree.base}/nodes/${node.id}`, condition).then(() => {
              setEditing(false);
              tree.changed('Condition saved.');
            })
          }
        />
      )}
      {node.node_type === 'condition' && (
        <>
          <SiblingList tree={tree} parent={node} branch="then" />
          <SiblingList tree={tree} parent={node} branch="else" />
        </>
      )}
    </>
  );
}
