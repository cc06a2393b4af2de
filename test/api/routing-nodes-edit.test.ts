/** Routing nodes: update content, delete with subtree, reorder a complete sibling list. */
import { expect } from 'chai';
import { api } from '../helpers/http';
import { createTenant, keyWithScopes, type Tenant } from '../helpers/factories';
import { expectError, expectFieldErrors } from '../helpers/envelope';
import {
  action,
  activities,
  addNode,
  condition,
  createConnector,
  createProfile,
  getProfile,
  listNodeIds,
  nodesPath,
  sql,
  type ProfileData,
} from '../helpers/routing';

let tenant: Tenant;
let profile: ProfileData;
let connectorId: string;
async function setup() {
  tenant = await createTenant();
  connectorId = (await createConnector(tenant.merchant_id)).id;
  profile = await createProfile(tenant, { default_merchant_connector_id: connectorId });
}
const nodePath = (nodeId: string, profileId = profile.id) => `${nodesPath(tenant.merchant_id, profileId)}/${nodeId}`;
const patchNode = (nodeId: string, body: Record<string, unknown>, key = tenant.merchant_secret_key) =>
  api.patch(nodePath(nodeId), { key, body });
const version = async () => (await getProfile(tenant, profile.id)).version;

describe('PATCH /api/v1/merchants/:merchant_id/routing-profiles/:profile_id/nodes/:node_id', () => {
  beforeEach(setup);

  it('updates an action node (connector, require_3ds, is_active), bumps the version and records routing_node.updated', async () => {
    const node = await addNode(tenant, profile.id, action(connectorId));
    const next = await createConnector(tenant.merchant_id, { name: 'Backup' });
    const res = await patchNode(node.id, {
      merchant_connector_id: next.id,
      require_3ds: 'if_supported',
      is_active: false,
    });
    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.include({
      id: node.id,
      merchant_connector_id: next.id,
      connector_name: 'Backup',
      require_3ds: 'if_supported',
      is_active: false,
      position: 0,
    });
    expect(await version()).to.equal(3);
    const [entry] = await activities(tenant.merchant_id, 'routing_node.updated');
    expect(entry.changes).to.deep.include({
      routing_node_id: node.id,
      require_3ds: { from: 'never', to: 'if_supported' },
    });
  });

  it('updates a condition, re-checking the merged field, operator and value', async () => {
    const node = await addNode(tenant, profile.id, condition('amount', 'gt', 100));
    expect((await patchNode(node.id, { condition_value: 500 })).body).to.include({
      condition_field: 'amount',
      condition_operator: 'gt',
      condition_value: 500,
    });
    // Switching the field alone leaves an operator/value that currency refuses.
    expectFieldErrors(await patchNode(node.id, { condition_field: 'currency' }), ['condition_operator']);
    expectFieldErrors(await patchNode(node.id, { condition_field: 'currency', condition_operator: 'eq' }), [
      'condition_value',
    ]);
    const res = await patchNode(node.id, {
      condition_field: 'currency',
      condition_operator: 'in',
      condition_value: ['BRL'],
    });
    expect(res.body).to.deep.include({
      condition_field: 'currency',
      condition_operator: 'in',
      condition_value: ['BRL'],
    });
  });

  it('rejects a catastrophic regex on update with 400, keeping the node', async () => {
    const node = await addNode(tenant, profile.id, condition('card_brand', 'regex', '^visa$'));
    expectFieldErrors(await patchNode(node.id, { condition_value: '(v+)+$' }), ['condition_value']);
    expect(
      (await api.get(nodesPath(tenant.merchant_id, profile.id), { key: tenant.merchant_secret_key })).body.data[0]
        .condition_value,
    ).to.equal('^visa$');
  });

  it('leaves the version alone when nothing changes', async () => {
    const node = await addNode(tenant, profile.id, action(connectorId));
    expect((await patchNode(node.id, { require_3ds: 'never', is_active: true })).status).to.equal(200);
    expect((await patchNode(node.id, {})).status).to.equal(200);
    expect(await version()).to.equal(2);
  });

  const refused: Array<[string, 'action' | 'condition', Record<string, unknown>, string[]]> = [
    ['condition fields on an action', 'action', { condition_field: 'amount' }, ['condition_field']],
    ['a null connector on an action', 'action', { merchant_connector_id: null }, ['merchant_connector_id']],
    ['a null require_3ds on an action', 'action', { require_3ds: null }, ['require_3ds']],
    ['a connector on a condition', 'condition', { merchant_connector_id: 'CONN' }, ['merchant_connector_id']],
    ['a null operator on a condition', 'condition', { condition_operator: null }, ['condition_operator']],
    ['node_type', 'action', { node_type: 'condition' }, ['node_type']],
    ['position (reorder moves nodes)', 'action', { position: 3 }, ['position']],
    ['parent_node_id', 'action', { parent_node_id: null }, ['parent_node_id']],
    ['branch', 'action', { branch: 'then' }, ['branch']],
  ];
  for (const [what, type, body, fields] of refused) {
    it(`rejects ${what} with 400`, async () => {
      const node = await addNode(
        tenant,
        profile.id,
        type === 'action' ? action(connectorId) : condition('amount', 'gt', 1),
      );
      expectFieldErrors(
        await patchNode(node.id, JSON.parse(JSON.stringify(body).replace('CONN', connectorId))),
        fields,
      );
      expect(await version()).to.equal(2);
    });
  }

  it("rejects another merchant's connector with 400", async () => {
    const node = await addNode(tenant, profile.id, action(connectorId));
    const foreign = await createConnector((await createTenant()).merchant_id);
    expectFieldErrors(await patchNode(node.id, { merchant_connector_id: foreign.id }), ['merchant_connector_id']);
  });

  it('answers 404 for a node of another profile or merchant, and requires routing:write', async () => {
    const other = await createProfile(tenant, { default_merchant_connector_id: connectorId });
    const foreignNode = await addNode(tenant, other.id, action(connectorId));
    expectError(await patchNode(foreignNode.id, { is_active: false }), 404, 'not_found_error');
    expectError(await patchNode('rn_missing', { is_active: false }), 404, 'not_found_error');
    const key = await keyWithScopes(tenant, ['routing:read']);
    expectError(await patchNode(foreignNode.id, { is_active: false }, key), 403, 'authorization_error');
  });
});

describe('DELETE /api/v1/merchants/:merchant_id/routing-profiles/:profile_id/nodes/:node_id', () => {
  beforeEach(setup);

  it('answers 204, deletes a condition with its whole subtree and closes the gap among its siblings', async () => {
    const first = await addNode(tenant, profile.id, action(connectorId));
    const parent = await addNode(tenant, profile.id, condition('amount', 'gt', 1, { position: 1 }));
    const child = await addNode(
      tenant,
      profile.id,
      condition('amount', 'gt', 2, { parent_node_id: parent.id, branch: 'then' }),
    );
    await addNode(tenant, profile.id, action(connectorId, { parent_node_id: child.id, branch: 'else' }));
    await addNode(tenant, profile.id, action(connectorId, { parent_node_id: parent.id, branch: 'else' }));
    const last = await addNode(tenant, profile.id, action(connectorId, { position: 2 }));
    const before = await version();
    const res = await api.delete(nodePath(parent.id), { key: tenant.merchant_secret_key });
    expect(res.status).to.equal(204);
    expect(await listNodeIds(tenant, profile.id)).to.deep.equal([first.id, last.id]);
    expect((await sql('select position from routing_nodes where id = ?', [last.id]))[0].position).to.equal(1);
    expect(await version()).to.equal(before + 1);
    const [entry] = await activities(tenant.merchant_id, 'routing_node.deleted');
    expect(entry.changes.deleted_node_ids).to.have.length(4);
  });

  it("answers 404 for an unknown node or one of another merchant's profile", async () => {
    const other = await createTenant();
    const otherProfile = await createProfile(other);
    const foreign = await addNode(other, otherProfile.id, action(otherProfile.default_merchant_connector_id));
    expectError(await api.delete(nodePath(foreign.id, otherProfile.id), { key: tenant.merchant_secret_key }), 404);
    expectError(await api.delete(nodePath('rn_missing'), { key: tenant.merchant_secret_key }), 404);
    expect(await listNodeIds(other, otherProfile.id)).to.deep.equal([foreign.id]);
  });
});

describe('PATCH /api/v1/merchants/:merchant_id/routing-profiles/:profile_id/nodes/reorder', () => {
  beforeEach(setup);
  const reorder = (body: Record<string, unknown>) =>
    api.patch(`${nodesPath(tenant.merchant_id, profile.id)}/reorder`, { key: tenant.merchant_secret_key, body });

  it('reorders the root siblings: 200 with them in the new order, positions rewritten, version bumped once', async () => {
    const a = await addNode(tenant, profile.id, action(connectorId));
    const b = await addNode(tenant, profile.id, action(connectorId, { position: 1 }));
    const c = await addNode(tenant, profile.id, action(connectorId, { position: 2 }));
    const res = await reorder({ ordered_node_ids: [c.id, a.id, b.id] });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.data.map((node: { id: string; position: number }) => [node.id, node.position])).to.deep.equal([
      [c.id, 0],
      [a.id, 1],
      [b.id, 2],
    ]);
    expect(res.body.meta).to.include({ total: 3, total_pages: 1 });
    expect(await listNodeIds(tenant, profile.id)).to.deep.equal([c.id, a.id, b.id]);
    expect(await version()).to.equal(5);
    const [entry] = await activities(tenant.merchant_id, 'routing_node.reordered');
    expect(entry.changes).to.deep.include({ from: [a.id, b.id, c.id], to: [c.id, a.id, b.id] });
  });

  it('reorders one branch of a condition, leaving the other branch alone', async () => {
    const parent = await addNode(tenant, profile.id, condition('amount', 'gt', 1));
    const t1 = await addNode(tenant, profile.id, action(connectorId, { parent_node_id: parent.id, branch: 'then' }));
    const t2 = await addNode(
      tenant,
      profile.id,
      action(connectorId, { parent_node_id: parent.id, branch: 'then', position: 1 }),
    );
    const e1 = await addNode(tenant, profile.id, action(connectorId, { parent_node_id: parent.id, branch: 'else' }));
    const res = await reorder({ parent_node_id: parent.id, branch: 'then', ordered_node_ids: [t2.id, t1.id] });
    expect(res.status, res.text).to.equal(200);
    expect(await listNodeIds(tenant, profile.id)).to.deep.equal([parent.id, t2.id, t1.id, e1.id]);
  });

  it('leaves the version alone when the order does not change', async () => {
    const a = await addNode(tenant, profile.id, action(connectorId));
    expect((await reorder({ parent_node_id: null, branch: null, ordered_node_ids: [a.id] })).status).to.equal(200);
    expect(await version()).to.equal(2);
  });

  const bad: Array<[string, (ids: string[], parentId: string) => Record<string, unknown>, string[]]> = [
    ['a partial list', (ids) => ({ ordered_node_ids: [ids[1], ids[0]] }), ['ordered_node_ids']],
    ['a duplicated id', (ids) => ({ ordered_node_ids: [ids[0], ids[1], ids[2], ids[0]] }), ['ordered_node_ids']],
    [
      'a duplicate replacing a sibling',
      (ids) => ({ ordered_node_ids: [ids[0], ids[1], ids[1]] }),
      ['ordered_node_ids'],
    ],
    [
      'a foreign id (the parent itself)',
      (ids, parentId) => ({ ordered_node_ids: [...ids, parentId] }),
      ['ordered_node_ids'],
    ],
    ['an unknown id', (ids) => ({ ordered_node_ids: [...ids.slice(1), 'rn_unknown'] }), ['ordered_node_ids']],
    ['an empty list', () => ({ ordered_node_ids: [] }), ['ordered_node_ids']],
    ['no ordered_node_ids', () => ({}), ['ordered_node_ids']],
    ['a malformed id', (ids) => ({ ordered_node_ids: [...ids.slice(1), 'bad id'] }), ['ordered_node_ids.2']],
    ['a branch without parent', (ids) => ({ branch: 'then', ordered_node_ids: ids }), ['branch']],
    ['a parent without branch', (ids, parentId) => ({ parent_node_id: parentId, ordered_node_ids: ids }), ['branch']],
    [
      'an action as parent',
      (ids) => ({ parent_node_id: ids[0], branch: 'then', ordered_node_ids: ids }),
      ['parent_node_id'],
    ],
  ];
  for (const [what, build, fields] of bad) {
    it(`rejects ${what} with 400 and changes nothing`, async () => {
      const parent = await addNode(tenant, profile.id, condition('amount', 'gt', 1));
      const ids: string[] = [];
      for (let i = 0; i < 3; i += 1)
        ids.push(
          (
            await addNode(
              tenant,
              profile.id,
              action(connectorId, { parent_node_id: parent.id, branch: 'else', position: i }),
            )
          ).id,
        );
      const body = build(ids, parent.id);
      if (
        'ordered_node_ids' in body &&
        !('parent_node_id' in body) &&
        !('branch' in body) &&
        what !== 'an empty list'
      ) {
        Object.assign(body, { parent_node_id: parent.id, branch: 'else' });
      }
      const before = await version();
      expectFieldErrors(await reorder(body), fields);
      expect(await listNodeIds(tenant, profile.id)).to.deep.equal([parent.id, ...ids]);
      expect(await version()).to.equal(before);
    });
  }

  it('rejects the same ids under the wrong branch with 400', async () => {
    const parent = await addNode(tenant, profile.id, condition('amount', 'gt', 1));
    const child = await addNode(tenant, profile.id, action(connectorId, { parent_node_id: parent.id, branch: 'then' }));
    expectFieldErrors(await reorder({ parent_node_id: parent.id, branch: 'else', ordered_node_ids: [child.id] }), [
      'ordered_node_ids',
    ]);
  });

  it('is not mistaken for a node id and still answers 404 for an unknown profile', async () => {
    const res = await api.patch(`${nodesPath(tenant.merchant_id, 'rp_unknown')}/reorder`, {
      key: tenant.merchant_secret_key,
      body: { ordered_node_ids: [] },
    });
    expectError(res, 404, 'not_found_error');
  });
});
