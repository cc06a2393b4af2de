/**
 * Connector secrets: write-only (never in a response, an error or an activity record), encrypted at rest,
 * recorded in the activity log by name only; and the internal functions that open them.
 */
import { expect } from 'chai';
import { api } from '../helpers/http';
import { addMerchant, createTenant, type Tenant } from '../helpers/factories';
import { connectorsPath, postConnector, rows, validCredentials, validWebhookSecret } from '../helpers/connectors';
import { stack } from '../helpers/stack';
import { findConnectorByWebhookToken, loadConnectorSecrets } from '../../domain/connectors/connectors.secrets';
import { ApiError } from '../../domain/platform/errors';

/** Tables (public schema) whose text form contains `needle` anywhere. */
async function tablesContaining(needle: string): Promise<string[]> {
  const tables = await rows(`select tablename from pg_tables where schemaname = 'public'`);
  const hits: string[] = [];
  for (const { tablename } of tables) {
    const [{ n }] = await rows(`select count(*) as n from "${tablename}" t where position(? in t::text) > 0`, [needle]);
    if (Number(n) > 0) hits.push(tablename);
  }
  return hits;
}

/**
 * The values to grep for. A JSON secret (provider_b) is escaped in JSON and row text, so its password is
 * searched for on its own too.
 */
const secretValues = (credentials: Record<string, string>, webhookSecret: string) => [
  ...Object.values(credentials).filter((value) => value !== 'AcmeStoreBR'),
  webhookSecret,
  ...(webhookSecret.startsWith('{') ? [JSON.parse(webhookSecret).password as string] : []),
];

describe('Connector secrets are write-only and encrypted at rest', () => {
  let tenant: Tenant;
  beforeEach(async () => {
    tenant = await createTenant();
  });
  const path = () => connectorsPath(tenant.merchant_id);

  for (const slug of ['provider_a', 'provider_b', 'provider_c', 'provider_d', 'checkout']) {
    it(`${slug}: credentials and webhook secret appear in no response, no activity record and no table in plaintext`, async () => {
      const credentials = validCredentials(slug);
      const webhookSecret = validWebhookSecret(slug);
      const key = tenant.merchant_secret_key;
      const created = await api.post(path(), {
        key,
        body: {
          provider_slug: slug,
          name: 'n',
          is_test_mode: true,
          auth_method: 'api_key',
          credentials,
          webhook_secret: webhookSecret,
        },
      });
      expect(created.status, created.text).to.equal(201);
      const newCredentials = validCredentials(slug);
      const newSecret = validWebhookSecret(slug);
      const responses = [
        created,
        await api.get(path(), { key }),
        await api.get(`${path()}/${created.body.id}`, { key }),
        await api.patch(`${path()}/${created.body.id}`, {
          key,
          body: { credentials: newCredentials, webhook_secret: newSecret },
        }),
      ];
      for (const secret of [...secretValues(credentials, webhookSecret), ...secretValues(newCredentials, newSecret)]) {
        for (const res of responses) expect(res.text, `${slug} response leaks a secret`).to.not.include(secret);
        expect(await tablesContaining(secret), `${slug} secret stored in plaintext`).to.deep.equal([]);
      }
      const [row] = await rows(
        'select credentials_encrypted, webhook_secret_encrypted from merchant_connectors where id = ?',
        [created.body.id],
      );
      expect(row.credentials_encrypted).to.match(/^v1\./);
      expect(row.webhook_secret_encrypted).to.match(/^v1\./);
    });
  }

  it('keeps the webhook token only encrypted and hashed in the database', async () => {
    const created = await postConnector(tenant);
    const token = new URL(created.webhook_url).searchParams.get('token') as string;
    expect(await tablesContaining(token)).to.deep.equal([]);
    // The search itself works: the connector's id is found where it is stored.
    expect(await tablesContaining(created.id)).to.include.members(['merchant_connectors', 'merchant_activities']);
  });

  it('records connector.created, connector.updated and connector.deleted naming changed secrets, never their values', async () => {
    const credentials = validCredentials('provider_a');
    const webhookSecret = validWebhookSecret('provider_a');
    const created = await postConnector(tenant, 'provider_a', { credentials, webhook_secret: webhookSecret });
    const newCredentials = validCredentials('provider_a');
    const url = `${path()}/${created.id}`;
    await api.patch(url, {
      key: tenant.merchant_secret_key,
      body: { name: 'Renamed', credentials: newCredentials, webhook_secret: null },
    });
    await api.patch(url, { key: tenant.merchant_secret_key, body: {} });
    await api.delete(url, { key: tenant.organization_secret_key });
    const activities = await rows(
      'select action, actor_type, actor_id, changes from merchant_activities where merchant_id = ? and action like ? order by created_at, id',
      [tenant.merchant_id, 'connector.%'],
    );
    expect(activities.map((a) => a.action)).to.deep.equal([
      'connector.created',
      'connector.updated',
      'connector.deleted',
    ]);
    expect(activities[0].changes).to.include({
      connector_id: created.id,
      provider_slug: 'provider_a',
      credentials: 'set',
      webhook_secret: 'set',
    });
    expect(activities[1].changes).to.deep.equal({
      connector_id: created.id,
      name: { from: 'provider_a main', to: 'Renamed' },
      credentials: 'changed',
      webhook_secret: 'cleared',
    });
    expect(activities[2].changes).to.include({ connector_id: created.id, name: 'Renamed' });
    expect(activities.every((a) => a.actor_type === 'api_key' && /^ak_/.test(a.actor_id))).to.equal(true);
    expect(activities[0].actor_id).to.not.equal(activities[2].actor_id);
    const text = JSON.stringify(activities);
    for (const secret of [...secretValues(credentials, webhookSecret), ...Object.values(newCredentials)])
      expect(text).to.not.include(secret);
  });

  it('a failed request records no activity and stores nothing', async () => {
    await api.post(path(), {
      key: tenant.merchant_secret_key,
      body: { provider_slug: 'provider_a', name: 'n', is_test_mode: true, auth_method: 'api_key', credentials: {} },
    });
    expect(await rows('select id from merchant_activities where merchant_id = ?', [tenant.merchant_id])).to.deep.equal(
      [],
    );
    expect(await rows('select id from merchant_connectors where merchant_id = ?', [tenant.merchant_id])).to.deep.equal(
      [],
    );
  });
});

describe('loadConnectorSecrets (internal, for activities)', () => {
  let tenant: Tenant;
  beforeEach(async () => {
    tenant = await createTenant();
  });
  const em = () => stack().orm.em.fork();
  const keys = () => stack().config.encryptionKeys;

  it('returns the connector with its decrypted credentials and webhook secret', async () => {
    const credentials = validCredentials('provider_b');
    const webhookSecret = validWebhookSecret('provider_b');
    const created = await postConnector(tenant, 'provider_b', { credentials, webhook_secret: webhookSecret });
    const secrets = await loadConnectorSecrets(em(), keys(), tenant.merchant_id, created.id);
    expect(secrets.connector.id).to.equal(created.id);
    expect(secrets.credentials).to.deep.equal(credentials);
    expect(secrets.webhookSecret).to.equal(webhookSecret);
  });

  it('returns webhookSecret null when none is configured, and the latest credentials after an update', async () => {
    const created = await postConnector(tenant, 'checkout');
    const updated = validCredentials('checkout');
    await api.patch(`${connectorsPath(tenant.merchant_id)}/${created.id}`, {
      key: tenant.merchant_secret_key,
      body: { credentials: updated },
    });
    const secrets = await loadConnectorSecrets(em(), keys(), tenant.merchant_id, created.id);
    expect(secrets.webhookSecret).to.equal(null);
    expect(secrets.credentials).to.deep.equal(updated);
  });

  it("refuses another merchant's connector (not found)", async () => {
    const created = await postConnector(tenant);
    const other = await addMerchant(tenant);
    const error = await loadConnectorSecrets(em(), keys(), other.merchantId, created.id).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(ApiError);
    expect((error as ApiError).status).to.equal(404);
  });
});

describe('findConnectorByWebhookToken (internal, for the inbound-webhook endpoint)', () => {
  let tenant: Tenant;
  beforeEach(async () => {
    tenant = await createTenant();
  });
  const em = () => stack().orm.em.fork();
  const tokenOf = (connector: any) => new URL(connector.webhook_url).searchParams.get('token') as string;

  it('finds the connector whose webhook_url carries the token', async () => {
    const created = await postConnector(tenant);
    expect((await findConnectorByWebhookToken(em(), created.id, tokenOf(created)))?.id).to.equal(created.id);
  });

  it("returns null for a wrong token, another connector's token or an unknown connector", async () => {
    const a = await postConnector(tenant);
    const b = await postConnector(tenant);
    expect(await findConnectorByWebhookToken(em(), a.id, `${tokenOf(a)}x`)).to.equal(null);
    expect(await findConnectorByWebhookToken(em(), a.id, '')).to.equal(null);
    expect(await findConnectorByWebhookToken(em(), a.id, tokenOf(b))).to.equal(null);
    expect(await findConnectorByWebhookToken(em(), 'conn_unknown', tokenOf(a))).to.equal(null);
  });
});
