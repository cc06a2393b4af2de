/** Routing nodes: create (placement, positions, type rules) and the whole-tree listing (Document 3, "Routing profiles"). */
import { expect } from 'chai';
import { api } from '../helpers/http';
import { addMerchant, createTenant, keyWithScopes, type Tenant } from '../helpers/factories';
import { expectError, expectFieldErrors, ISO_UTC_MS } from '../helpers/envelope';
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

const NODE_KEYS = [
  'id',
  'routing_profile_id',
  'parent_node_id',
  'branch',
  'position',
  'node_type',
  'condition_field',
  'condition_operator',
  'condition_value',
  'merchant_connector_id',
  'connector_name',
  'require_3ds',
  'is_active',
  'created_at',
  'updated_at',
];

describe('POST /api/v1/merchants/:merchant_id/routing-profiles/:profile_id/nodes', () => {
  let tenant: Tenant;
  let profile: ProfileData;
  let connectorId: string;
  beforeEach(async () => {
    tenant = await createTenant();
    connectorId = (await createConnector(tenant.merchant_id, { name: 'Main acquirer' })).id;
    profile = await createProfile(tenant, { default_merchant_connector_id: connectorId });
  });
  const post = (body: Record<string, unknown>, key = tenant.merchant_secret_key) =>
    api.post(nodesPath(tenant.merchant_id, profile.id), { key, body });
  const nodeCount = async () =>
    (await sql('select count(*)::int as n from routing_nodes where routing_profile_id = ?', [profile.id]))[0].n;

  it('creates a root action node: 201 with the node, require_3ds never and is_active true by default', async () => {
    const res = await post({ node_type: 'action', position: 0, merchant_connector_id: connectorId });
    expect(res.status, res.text).to.equal(201);
    expect(res.body).to.have.all.keys(NODE_KEYS);
    expect(res.body.id).to.match(/^rn_/);
    expect(res.body).to.include({
      routing_profile_id: profile.id,
      parent_node_id: null,
      branch: null,
      position: 0,
      node_type: 'action',
      condition_field: null,
      condition_operator: null,
      condition_value: null,
      merchant_connector_id: connectorId,
      connector_name: 'Main acquirer',
      require_3ds: 'never',
      is_active: true,
    });
    expect(res.body.created_at).to.match(ISO_UTC_MS);
  });

  it('creates a condition node with its field, operator and value (connector fields null)', async () => {
    const res = await post({ ...condition('currency', 'in', ['BRL', 'USD']), position: 0, is_active: false });
    expect(res.status, res.text).to.equal(201);
    expect(res.body).to.deep.include({
      node_type: 'condition',
      condition_field: 'currency',
      condition_operator: 'in',
      condition_value: ['BRL', 'USD'],
      merchant_connector_id: null,
      connector_name: null,
      require_3ds: null,
      is_active: false,
    });
  });

  it('places children under a condition node in its then and else branches', async () => {
    const parent = await addNode(tenant, profile.id, condition('is_recurring', 'eq', true));
    const then = await addNode(
      tenant,
      profile.id,
      action(connectorId, { parent_node_id: parent.id, branch: 'then', require_3ds: 'always' }),
    );
    const otherwise = await addNode(
      tenant,
      profile.id,
      action(connectorId, { parent_node_id: parent.id, branch: 'else' }),
    );
    expect(then).to.include({ parent_node_id: parent.id, branch: 'then', position: 0, require_3ds: 'always' });
    expect(otherwise).to.include({ parent_node_id: parent.id, branch: 'else', position: 0 });
  });

  it('shifts later siblings when inserting at a taken position, and appends at position = sibling count', async () => {
    const a = await addNode(tenant, profile.id, action(connectorId, { position: 0 }));
    const b = await addNode(tenant, profile.id, action(connectorId, { position: 1 }));
    const inserted = await addNode(tenant, profile.id, action(connectorId, { position: 1 }));
    const appended = await addNode(tenant, profile.id, action(connectorId, { position: 3 }));
    const positions = await sql(
      'select id, position from routing_nodes where routing_profile_id = ? order by position',
      [profile.id],
    );
    expect(positions.map((row) => row.id)).to.deep.equal([a.id, inserted.id, b.id, appended.id]);
    expect(positions.map((row) => row.position)).to.deep.equal([0, 1, 2, 3]);
  });

  it('rejects a position beyond the sibling count with 400 (positions stay contiguous)', async () => {
    expectFieldErrors(await post({ ...action(connectorId), position: 1 }), ['position']);
    await addNode(tenant, profile.id, action(connectorId));
    expectFieldErrors(await post({ ...action(connectorId), position: 2 }), ['position']);
    expect(await nodeCount()).to.equal(1);
  });

  it('bumps the profile version and records routing_node.created', async () => {
    const node = await addNode(tenant, profile.id, action(connectorId));
    expect((await getProfile(tenant, profile.id)).version).to.equal(2);
    const [entry] = await activities(tenant.merchant_id, 'routing_node.created');
    expect(entry.changes).to.include({
      routing_profile_id: profile.id,
      routing_node_id: node.id,
      node_type: 'action',
      version: 2,
    });
  });

  const placement: Array<[string, (parentId: string, actionId: string) => Record<string, unknown>, string[]]> = [
    ['a branch without parent_node_id', () => ({ branch: 'then' }), ['branch']],
    ['parent_node_id without a branch', (parentId) => ({ parent_node_id: parentId }), ['branch']],
    ['an unknown parent_node_id', () => ({ parent_node_id: 'rn_unknown', branch: 'then' }), ['parent_node_id']],
    [
      'an action node as parent (actions have no children)',
      (_parentId, actionId) => ({ parent_node_id: actionId, branch: 'then' }),
      ['parent_node_id'],
    ],
    ['an unknown branch', (parentId) => ({ parent_node_id: parentId, branch: 'maybe' }), ['branch']],
  ];
  for (const [what, build, fields] of placement) {
    it(`rejects ${what} with 400`, async () => {
      const parent = await addNode(tenant, profile.id, condition('amount', 'gt', 100));
      const leaf = await addNode(tenant, profile.id, action(connectorId, { position: 1 }));
      expectFieldErrors(await post({ ...action(connectorId), position: 0, ...build(parent.id, leaf.id) }), fields);
      expect(await nodeCount()).to.equal(2);
    });
  }

  it('rejects a parent node of another profile with 400', async () => {
    const other = await createProfile(tenant, { default_merchant_connector_id: connectorId });
    const foreignParent = await addNode(tenant, other.id, condition('amount', 'gt', 1));
    expectFieldErrors(
      await post({ ...action(connectorId), position: 0, parent_node_id: foreignParent.id, branch: 'then' }),
      ['parent_node_id'],
    );
  });

  const typeRules: Array<[string, Record<string, unknown>, string[]]> = [
    ['an action without merchant_connector_id', { node_type: 'action' }, ['merchant_connector_id']],
    [
      'an action with condition fields',
      { ...action('CONN'), condition_field: 'amount', condition_operator: 'gt', condition_value: 1 },
      ['condition_field', 'condition_operator', 'condition_value'],
    ],
    [
      'a condition without field and operator',
      { node_type: 'condition', condition_value: 1 },
      ['condition_field', 'condition_operator'],
    ],
    [
      'a condition with merchant_connector_id and require_3ds',
      { ...condition('amount', 'gt', 1), merchant_connector_id: 'CONN', require_3ds: 'always' },
      ['merchant_connector_id', 'require_3ds'],
    ],
    ['an unknown node_type', { node_type: 'split' }, ['node_type']],
    ['a missing node_type', { merchant_connector_id: 'CONN' }, ['node_type']],
    ['an unknown require_3ds', action('CONN', { require_3ds: 'sometimes' }), ['require_3ds']],
    ['an unknown condition_field', condition('country', 'eq', 'BR'), ['condition_field']],
    ['an unknown field', action('CONN', { weight: 50 }), ['weight']],
  ];
  for (const [what, body, fields] of typeRules) {
    it(`rejects ${what} with 400`, async () => {
      const resolved = JSON.parse(JSON.stringify({ position: 0, ...body }).replace(/CONN/g, connectorId));
      expectFieldErrors(await post(resolved), fields);
      expect(await nodeCount()).to.equal(0);
    });
  }

  it('rejects a missing or negative position with 400', async () => {
    expectFieldErrors(await post({ node_type: 'action', merchant_connector_id: connectorId }), ['position']);
    expectFieldErrors(await post({ ...action(connectorId), position: -1 }), ['position']);
  });

  it("rejects another merchant's connector (and an unknown one) on an action with 400", async () => {
    const foreign = await createConnector((await createTenant()).merchant_id);
    expectFieldErrors(await post({ ...action(foreign.id), position: 0 }), ['merchant_connector_id']);
    expectFieldErrors(await post({ ...action('conn_unknown'), position: 0 }), ['merchant_connector_id']);
  });

  it('accepts an inactive connector on an action node (routing skips it at evaluation)', async () => {
    const inactive = await createConnector(tenant.merchant_id, { isActive: false });
    expect((await post({ ...action(inactive.id), position: 0 })).status).to.equal(201);
  });

  it("answers 404 for another merchant's profile, also with an organization key owning both", async () => {
    const second = await addMerchant(tenant);
    const res = await api.post(nodesPath(second.merchantId, profile.id), {
      key: tenant.organization_secret_key,
      body: { ...action(connectorId), position: 0 },
    });
    expectError(res, 404, 'not_found_error');
  });

  it('requires routing:write', async () => {
    const key = await keyWithScopes(tenant, ['routing:read']);
    expectError(await post({ ...action(connectorId), position: 0 }, key), 403, 'authorization_error');
  });

  it('replays an idempotent create with 200 and the same node, creating one', async () => {
    const headers = { 'idempotency-key': `rn-${Date.now()}` };
    const body = { ...action(connectorId), position: 0 };
    const first = await api.post(nodesPath(tenant.merchant_id, profile.id), {
      key: tenant.merchant_secret_key,
      body,
      headers,
    });
    const again = await api.post(nodesPath(tenant.merchant_id, profile.id), {
      key: tenant.merchant_secret_key,
      body,
      headers,
    });
    expect([first.status, again.status]).to.deep.equal([201, 200]);
    expect(again.body).to.deep.equal(first.body);
    expect(await nodeCount()).to.equal(1);
  });

  it('keeps positions contiguous when nodes are inserted concurrently at the same place', async () => {
    await Promise.all(Array.from({ length: 6 }, () => post({ ...action(connectorId), position: 0 })));
    const positions = (
      await sql('select position from routing_nodes where routing_profile_id = ? order by position', [profile.id])
    ).map((row) => row.position);
    expect(positions).to.deep.equal([0, 1, 2, 3, 4, 5]);
    expect((await getProfile(tenant, profile.id)).version).to.equal(7);
  });
});

describe('GET /api/v1/merchants/:merchant_id/routing-profiles/:profile_id/nodes', () => {
  it('returns the whole tree on one page in evaluation order (a condition, its then subtree, its else subtree, then the next root)', async () => {
    const tenant = await createTenant();
    const connector = await createConnector(tenant.merchant_id, { name: 'Acq' });
    const profile = await createProfile(tenant, { default_merchant_connector_id: connector.id });
    const last = await addNode(tenant, profile.id, action(connector.id, { position: 0 }));
    const root = await addNode(tenant, profile.id, condition('currency', 'eq', 'BRL', { position: 0 }));
    const elseLeaf = await addNode(
      tenant,
      profile.id,
      action(connector.id, { parent_node_id: root.id, branch: 'else' }),
    );
    const inner = await addNode(
      tenant,
      profile.id,
      condition('amount', 'gte', 1000, { parent_node_id: root.id, branch: 'then' }),
    );
    const thenLeaf = await addNode(
      tenant,
      profile.id,
      action(connector.id, { parent_node_id: root.id, branch: 'then', position: 1 }),
    );
    const innerThen = await addNode(
      tenant,
      profile.id,
      action(connector.id, { parent_node_id: inner.id, branch: 'then' }),
    );
    for (let i = 0; i < 20; i += 1) await addNode(tenant, profile.id, action(connector.id, { position: 2 + i }));

    const res = await api.get(nodesPath(tenant.merchant_id, profile.id), { key: tenant.organization_secret_key });
    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.have.all.keys(['data', 'meta']);
    expect(res.body.meta).to.deep.equal({
      page: 1,
      limit: 26,
      total: 26,
      total_pages: 1,
      has_next: false,
      has_prev: false,
    });
    expect(res.body.data.slice(0, 6).map((node: { id: string }) => node.id)).to.deep.equal([
      root.id,
      inner.id,
      innerThen.id,
      thenLeaf.id,
      elseLeaf.id,
      last.id,
    ]);
    expect(res.body.data[2]).to.have.all.keys(NODE_KEYS);
    expect(res.body.data[2].connector_name).to.equal('Acq');
  });

  it('returns an empty page for a profile without nodes', async () => {
    const tenant = await createTenant();
    const profile = await createProfile(tenant);
    const res = await api.get(nodesPath(tenant.merchant_id, profile.id), { key: tenant.merchant_secret_key });
    expect(res.body).to.deep.equal({
      data: [],
      meta: { page: 1, limit: 1, total: 0, total_pages: 0, has_next: false, has_prev: false },
    });
  });

  it("answers 404 for another merchant's profile and rejects paging parameters with 400", async () => {
    const tenant = await createTenant();
    const other = await createTenant();
    const profile = await createProfile(other);
    expectError(
      await api.get(nodesPath(tenant.merchant_id, profile.id), { key: tenant.merchant_secret_key }),
      404,
      'not_found_error',
    );
    const own = await createProfile(tenant);
    expectError(
      await api.get(nodesPath(tenant.merchant_id, own.id), { key: tenant.merchant_secret_key, query: { page: 2 } }),
      400,
      'validation_error',
    );
    expect(await listNodeIds(tenant, own.id)).to.deep.equal([]);
  });
});
