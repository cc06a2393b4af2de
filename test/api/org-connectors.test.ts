/**
 * Document 3 "Connectors (organization Dashboard)": an organization user's session with x-organization-id manages
 * the connectors of the organization's merchants (merchant_id names one on create and filters the list), tests
 * stored credentials through a worker, and never reaches another organization's merchants or connectors (404).
 */
import { expect } from 'chai';
import { api } from '../helpers/http';
import { addMerchant, createTenant, type Tenant } from '../helpers/factories';
import { rows } from '../helpers/db';
import { bearer, createMerchantUser, createOrganizationUser, signIn } from '../helpers/dashboard';
import { CONNECTOR_KEYS, connectorBody, insertRoutingProfile, postConnector } from '../helpers/connectors';
import { invalidCredentialsFor } from '../helpers/sandbox';
import { startApi, type RunningApi } from '../../api/server';
import { stack, withWorkerDown } from '../helpers/stack';
import { historyText, waitUntil } from '../helpers/webhooks';
import { expectError } from '../helpers/envelope';

async function organizationSession(tenant: Tenant): Promise<Record<string, string>> {
  const user = await createOrganizationUser([tenant.organization_id]);
  const { access_token: token } = await signIn('organization', user);
  return bearer(token as string, { 'x-organization-id': tenant.organization_id });
}

describe('Organization Dashboard connectors', () => {
  let tenant: Tenant;
  let headers: Record<string, string>;
  before(async () => {
    tenant = await createTenant();
    headers = await organizationSession(tenant);
  });

  it('creates, lists (all merchants or one), reads, updates and deletes a connector of a merchant of the organization', async () => {
    const sibling = await addMerchant(tenant);
    const created = await api.post('/org/connectors', {
      headers,
      body: { merchant_id: sibling.merchantId, ...connectorBody('provider_a') },
    });
    expect(created.status, created.text).to.equal(201);
    expect(created.body).to.have.all.keys(CONNECTOR_KEYS);
    expect(created.body.merchant_id).to.equal(sibling.merchantId);
    expect(created.text).to.not.include('sk_test_Plain');
    const own = await postConnector(tenant, 'provider_b');

    const all = await api.get('/org/connectors', { headers, query: { limit: 100 } });
    expect(all.status, all.text).to.equal(200);
    expect(all.body.data.map((c: any) => c.id)).to.include.members([created.body.id, own.id]);
    expect(all.body.meta).to.include({ page: 1, limit: 100 });
    const one = await api.get('/org/connectors', { headers, query: { merchant_id: sibling.merchantId } });
    expect(one.body.data.map((c: any) => c.id)).to.deep.equal([created.body.id]);
    expect(one.body.meta.total).to.equal(1);

    const read = await api.get(`/org/connectors/${created.body.id}`, { headers });
    expect(read.status).to.equal(200);
    expect(read.body.id).to.equal(created.body.id);
    const patched = await api.patch(`/org/connectors/${created.body.id}`, {
      headers,
      body: { name: 'Renamed', is_active: false },
    });
    expect(patched.status, patched.text).to.equal(200);
    expect(patched.body).to.include({ name: 'Renamed', is_active: false });
    const deleted = await api.delete(`/org/connectors/${created.body.id}`, { headers });
    expect(deleted.status, deleted.text).to.equal(204);
    expect((await api.get(`/org/connectors/${created.body.id}`, { headers })).status).to.equal(404);

    // The activity log names the signed-in person, not an API key.
    const activity = await rows(
      'select action, actor_type from merchant_activities where merchant_id = ? order by created_at',
      [sibling.merchantId],
    );
    expect(activity.filter((a: any) => a.action.startsWith('connector.'))).to.deep.equal([
      { action: 'connector.created', actor_type: 'dashboard_user' },
      { action: 'connector.updated', actor_type: 'dashboard_user' },
      { action: 'connector.deleted', actor_type: 'dashboard_user' },
    ]);
  });

  it('400 for invalid input: missing merchant_id, incomplete credentials, connector in use', async () => {
    const noMerchant = await api.post('/org/connectors', { headers, body: connectorBody('provider_a') });
    expect(noMerchant.status).to.equal(400);
    expect(noMerchant.body.error.type).to.equal('validation_error');
    const badCredentials = await api.post('/org/connectors', {
      headers,
      body: { merchant_id: tenant.merchant_id, ...connectorBody('provider_a', { credentials: { secret_key: 'x' } }) },
    });
    expect(badCredentials.status).to.equal(400);
    expect(badCredentials.body.error.details).to.have.property('credentials.secret_key');
    const used = await postConnector(tenant);
    await insertRoutingProfile(tenant.merchant_id, used.id);
    const blocked = await api.delete(`/org/connectors/${used.id}`, { headers });
    expect(blocked.status).to.equal(400);
    expect(blocked.body.error.code).to.equal('CONNECTOR_IN_USE');
  });

  it("cross-tenant: another organization's connector or merchant is 404 on every endpoint", async () => {
    const other = await createTenant();
    const foreign = await postConnector(other);
    const path = `/org/connectors/${foreign.id}`;
    const answers = await Promise.all([
      api.get(path, { headers }),
      api.patch(path, { headers, body: { name: 'Stolen' } }),
      api.delete(path, { headers }),
      api.post(`${path}/test`, { headers }),
      api.post('/org/connectors', { headers, body: { merchant_id: other.merchant_id, ...connectorBody() } }),
      api.get('/org/connectors', { headers, query: { merchant_id: other.merchant_id } }),
    ]);
    expect(answers.map((res) => res.status)).to.deep.equal([404, 404, 404, 404, 404, 404]);
    const listed = await api.get('/org/connectors', { headers, query: { limit: 100 } });
    expect(listed.body.data.map((c: any) => c.id)).to.not.include(foreign.id);
    const [row] = await rows('select name from merchant_connectors where id = ?', [foreign.id]);
    expect(row.name).to.not.equal('Stolen');
  });

  it('cross-identity: API keys and merchant Dashboard tokens are 401; no session 401; no header 400; another organization 403', async () => {
    const connector = await postConnector(tenant);
    const path = `/org/connectors/${connector.id}`;
    for (const key of [tenant.organization_secret_key, tenant.merchant_secret_key]) {
      const res = await api.get(path, { key, headers: { 'x-organization-id': tenant.organization_id } });
      expect(res.status, res.text).to.equal(401);
      expect((await api.get('/org/connectors', { key })).status).to.equal(401);
    }
    const merchantUser = await createMerchantUser(tenant.organization_id, [tenant.merchant_id]);
    const merchantToken = (await signIn('merchant', merchantUser)).access_token as string;
    expect(
      (await api.get(path, { headers: bearer(merchantToken, { 'x-organization-id': tenant.organization_id }) })).status,
    ).to.equal(401);
    expect((await api.get(path)).status).to.equal(401);
    const { 'x-organization-id': _ignored, ...withoutTenant } = headers;
    expect((await api.get(path, { headers: withoutTenant })).status).to.equal(400);
    const other = await createTenant();
    expect(
      (await api.get(path, { headers: { ...headers, 'x-organization-id': other.organization_id } })).status,
    ).to.equal(403);
  });

  describe('POST /org/connectors/:id/test', () => {
    it("answers ok when the provider accepts the stored credentials (the sandbox's own check)", async () => {
      const connector = await postConnector(tenant, 'provider_b');
      const res = await api.post(`/org/connectors/${connector.id}/test`, { headers });
      expect(res.status, res.text).to.equal(200);
      expect(res.body).to.have.all.keys(['ok', 'provider_message', 'checked_at']);
      expect(res.body).to.include({ ok: true, provider_message: 'The provider accepted the credentials' });
      expect(Date.parse(res.body.checked_at)).to.be.closeTo(Date.now(), 60_000);
    });

    it('answers ok false, without quoting them, when the provider refuses the credentials', async () => {
      for (const slug of ['provider_a', 'provider_c'] as const) {
        const bad = invalidCredentialsFor(slug);
        const connector = await postConnector(tenant, slug, { credentials: bad });
        const res = await api.post(`/org/connectors/${connector.id}/test`, { headers });
        expect(res.status, res.text).to.equal(200);
        expect(res.body).to.include({ ok: false, provider_message: 'The provider rejected the credentials' });
        for (const value of Object.values(bad)) expect(res.text).to.not.include(String(value));
      }
    });

    it("runs in a workflow whose history holds ids only, never the connector's credentials", async () => {
      const fresh = await createTenant();
      const freshHeaders = await organizationSession(fresh);
      const connector = await postConnector(fresh, 'provider_a');
      const [stored] = await rows('select credentials_encrypted from merchant_connectors where id = ?', [connector.id]);
      expect(stored.credentials_encrypted).to.be.a('string');
      expect((await api.post(`/org/connectors/${connector.id}/test`, { headers: freshHeaders })).status).to.equal(200);
      const client = stack().api.deps.temporal.client;
      const query = `WorkflowType = 'connectorCredentialCheckWorkflow' AND MerchantId = '${fresh.merchant_id}'`;
      const workflowId = await waitUntil(async () => {
        for await (const workflow of client.workflow.list({ query })) return workflow.workflowId;
        return undefined;
      });
      expect(workflowId).to.match(new RegExp(`^connector-credential-check-${connector.id}-`));
      const text = historyText(await client.workflow.getHandle(workflowId).fetchHistory());
      expect(text).to.include(connector.id);
      expect(text).to.not.match(/sk_test_Plain/);
    });

    it('rate limit: 429 past the per-connector budget, then past the per-organization budget', async function () {
      this.timeout(60_000);
      const fresh = await createTenant();
      const freshHeaders = await organizationSession(fresh);
      const first = await postConnector(fresh, 'provider_a');
      const second = await postConnector(fresh, 'provider_b');
      const { config } = stack();
      let app: RunningApi | undefined;
      try {
        app = await startApi(
          {
            ...config,
            dashboard: { ...config.dashboard, credentialChecksPerConnector: 2, credentialChecksPerOrganization: 3 },
          },
          0,
        );
        const check = (id: string) =>
          api.post(`/org/connectors/${id}/test`, { headers: freshHeaders, baseUrl: app?.url });
        for (let i = 0; i < 2; i++) expect((await check(first.id)).status).to.equal(200);
        const perConnector = expectError(await check(first.id), 429, 'rate_limit_error', 'RATE_LIMIT_EXCEEDED');
        expect(perConnector.message).to.match(/connector/);
        // A refused check does not spend the organization's budget: the second connector gets the third check.
        expect((await check(second.id)).status).to.equal(200);
        const refused = await check(second.id);
        expect(expectError(refused, 429, 'rate_limit_error', 'RATE_LIMIT_EXCEEDED').message).to.match(/organization/);
        expect(Number(refused.headers.get('retry-after'))).to.be.within(1, 600);
      } finally {
        await app?.stop();
      }
    });

    it('502 CREDENTIAL_CHECK_UNAVAILABLE when no worker answers in time', async function () {
      this.timeout(60_000);
      const connector = await postConnector(tenant, 'provider_a');
      let app: RunningApi | undefined;
      try {
        app = await startApi({ ...stack().config, workflowWaitMs: 2_000 }, 0);
        const res = await withWorkerDown(() =>
          api.post(`/org/connectors/${connector.id}/test`, { headers, baseUrl: app?.url }),
        );
        expectError(res, 502, 'external_service_error', 'CREDENTIAL_CHECK_UNAVAILABLE');
      } finally {
        await app?.stop();
      }
    });
  });
});
