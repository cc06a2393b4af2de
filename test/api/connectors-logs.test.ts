/**
 * No credential or secret ever reaches the API's log. The suite's stack logs silently, so this starts a second
 * API process (same database and Temporal) whose pino logger writes at debug level into memory, drives every
 * connector endpoint through it — successes and failures — and greps what was logged.
 */
import { expect } from 'chai';
import { createLogger } from '../../domain/platform/logger';
import { startApi, type RunningApi } from '../../api/server';
import { api } from '../helpers/http';
import { createTenant, type Tenant } from '../helpers/factories';
import {
  ACTIVE_SLUGS,
  connectorBody,
  connectorsPath,
  validCredentials,
  validWebhookSecret,
} from '../helpers/connectors';
import { stack } from '../helpers/stack';

describe('API log output', () => {
  const lines: string[] = [];
  let debugApi: RunningApi;
  let tenant: Tenant;
  before(async () => {
    debugApi = await startApi(stack().config, 0, {
      logger: createLogger('debug', { write: (line: string) => void lines.push(line) }),
    });
    tenant = await createTenant();
  });
  after(async () => {
    await debugApi.stop();
  });

  it('never contains a credential, webhook secret or webhook token, across every connector endpoint', async () => {
    const baseUrl = debugApi.url;
    const key = tenant.merchant_secret_key;
    const secrets: string[] = [];
    const remember = (credentials: Record<string, string>, webhookSecret?: string) => {
      secrets.push(...Object.values(credentials).filter((value) => value !== 'AcmeStoreBR'));
      if (webhookSecret)
        secrets.push(webhookSecret, ...(webhookSecret.startsWith('{') ? [JSON.parse(webhookSecret).password] : []));
    };
    for (const slug of ACTIVE_SLUGS) {
      const body = connectorBody(slug, { webhook_secret: validWebhookSecret(slug) });
      remember(body.credentials, body.webhook_secret);
      const created = await api.post(connectorsPath(tenant.merchant_id), {
        key,
        body,
        baseUrl,
        headers: { 'idempotency-key': `log-${slug}` },
      });
      expect(created.status, created.text).to.equal(201);
      secrets.push(new URL(created.body.webhook_url).searchParams.get('token') as string);
      const url = `${connectorsPath(tenant.merchant_id)}/${created.body.id}`;
      const newCredentials = validCredentials(slug);
      remember(newCredentials);
      expect((await api.patch(url, { key, body: { credentials: newCredentials }, baseUrl })).status).to.equal(200);
      // Failures too: wrong shape, bad webhook secret, malformed JSON carrying a secret.
      const wrong = { ...validCredentials(slug), unexpected_field: `LeakedExtra${slug}` };
      remember(wrong);
      expect((await api.patch(url, { key, body: { credentials: wrong }, baseUrl })).status).to.equal(400);
      const badSecret = `LeakBad${slug.slice(-2)}`;
      secrets.push(badSecret);
      expect((await api.patch(url, { key, body: { webhook_secret: badSecret }, baseUrl })).status).to.equal(400);
      expect((await api.get(url, { key, baseUrl })).status).to.equal(200);
      expect((await api.delete(url, { key, baseUrl })).status).to.equal(204);
    }
    secrets.push('LeakedMalformedJson');
    const malformed = await api.post(connectorsPath(tenant.merchant_id), {
      key,
      rawBody: '{"credentials": {"secret_key": "LeakedMalformedJson"',
      headers: { 'content-type': 'application/json' },
      baseUrl,
    });
    expect(malformed.status).to.equal(400);
    secrets.push(key);

    const log = lines.join('');
    // The log really captured these requests (the test is not vacuous).
    expect(log).to.include(`/api/v1/merchants/${tenant.merchant_id}/connectors`);
    expect(lines.length).to.be.at.least(ACTIVE_SLUGS.length * 6);
    for (const secret of secrets) expect(log, 'a secret reached the log').to.not.include(secret);
  });
});
