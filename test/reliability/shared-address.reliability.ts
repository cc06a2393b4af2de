/**
 * Part 7 — an abusive neighbour at a shared address. An API with the production budgets (unknown keys, refused
 * webhooks) and no TRUSTED_PROXIES: every client is the loopback address, as every client is the proxy's address
 * behind a proxy that is not trusted. A neighbour first spends the address's budgets (random secret and public
 * keys, deliveries to unknown connectors, wrong tokens, forged signatures), then keeps sending them while a
 * legitimate client at the same address lists customers with its secret key, opens browser sessions with its
 * public key and receives its provider's signed webhooks. The neighbour must be refused (401, then 429) and the
 * legitimate client never: 0 refusals.
 */
import { expect } from 'chai';
import { createHmac, randomUUID } from 'node:crypto';
import { loadConfig } from '../../domain/platform/config';
import { startApi, type RunningApi } from '../../api/server';
import { generateApiKey } from '../../domain/api-keys/api-keys.service';
import { api } from '../helpers/http';
import { createTenant } from '../helpers/factories';
import { stack } from '../helpers/stack';
import { publicHeaders } from '../helpers/vault';
import { cascade, type CascadeConnector } from '../helpers/transactions';
import { registerSecret } from './support/secrets';
import { reportSummary, sizeFrom } from './support/summary';

const NEIGHBOUR_REQUESTS = sizeFrom('RELIABILITY_NEIGHBOUR_REQUESTS', 300);
const LEGITIMATE_REQUESTS = sizeFrom('RELIABILITY_NEIGHBOUR_LEGITIMATE', 60);
/** The production defaults the neighbour must first exhaust (UNKNOWN_API_KEYS_PER_IP, refused webhooks). */
const BUDGET = 30;

describe('Reliability: an abusive neighbour at a shared address', () => {
  let shared: RunningApi;
  before(async () => {
    // The stack's API has the unknown-key budget raised for the other tests; this one keeps the default. (The
    // neighbour's random public keys never reach the per-(public key, address) budget, which stays as the stack has it.)
    shared = await startApi(loadConfig({ ...stack().env, UNKNOWN_API_KEYS_PER_IP: String(BUDGET) }), 0);
  });
  after(() => shared.stop());

  const tokenOf = (connector: CascadeConnector) => new URL(connector.webhookUrl).searchParams.get('token') ?? '';
  const deliver = async (connectorId: string, token: string, body = '{}', headers: Record<string, string> = {}) => {
    const res = await fetch(`${shared.url}/api/v1/webhooks/inbound/${connectorId}?token=${token}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body,
    });
    await res.arrayBuffer();
    return res.status;
  };
  /** A provider_a event Switchyard does not act on (200 ignored), signed with `secret`. */
  const signed = (connector: CascadeConnector, secret = connector.webhookSecret) => {
    const id = `evt_${randomUUID().replace(/-/g, '')}`;
    const body = JSON.stringify({ id, type: 'account.updated', created: Math.floor(Date.now() / 1000), data: {} });
    const timestamp = String(Math.floor(Date.now() / 1000));
    const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
    const signature = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64');
    return deliver(connector.id, tokenOf(connector), body, {
      'webhook-id': id,
      'webhook-timestamp': timestamp,
      'webhook-signature': `v1,${signature}`,
    });
  };
  const forgedSecret = `whsec_${Buffer.from('the neighbour does not know the secret').toString('base64')}`;

  it('the neighbour is refused and the legitimate client at its address never is', async function () {
    this.timeout(300_000);
    const tenant = await createTenant();
    const [connector] = await cascade(tenant, ['provider_a']);
    registerSecret('api_key', tenant.merchant_secret_key, 'shared-address tenant');
    registerSecret('api_key', tenant.merchant_public_key, 'shared-address tenant');
    registerSecret('webhook_secret', connector.webhookSecret, 'shared-address connector');
    registerSecret('webhook_secret', tokenOf(connector), 'shared-address connector webhook token');

    const neighbourAnswers = new Map<number, number>();
    const neighbour = async (i: number) => {
      const kind = i % 5;
      const status =
        kind === 0
          ? (await api.get('/customers', { baseUrl: shared.url, key: generateApiKey('secret', 'merchant') })).status
          : kind === 1
            ? (
                await api.post('/sessions', {
                  baseUrl: shared.url,
                  headers: publicHeaders(generateApiKey('public', 'merchant')),
                  body: {},
                })
              ).status
            : kind === 2
              ? await deliver(`conn_${randomUUID().slice(0, 8)}`, 'x')
              : kind === 3
                ? await deliver(connector.id, `wrong${i}`)
                : await signed(connector, forgedSecret);
      neighbourAnswers.set(status, (neighbourAnswers.get(status) ?? 0) + 1);
    };
    // First past both budgets of the address (keys: kinds 0-1; webhooks: kinds 2-4).
    for (let i = 0; i < 4 * BUDGET; i += 1) await neighbour(i);
    expect(neighbourAnswers.get(429) ?? 0, JSON.stringify([...neighbourAnswers])).to.be.above(0);

    const legitimateRefusals: string[] = [];
    let legitimate = 0;
    const client = async () => {
      for (let i = 0; i < LEGITIMATE_REQUESTS; i += 1) {
        const kind = i % 3;
        const [what, status, expected] =
          kind === 0
            ? [
                'secret key',
                (await api.get('/customers', { baseUrl: shared.url, key: tenant.merchant_secret_key })).status,
                200,
              ]
            : kind === 1
              ? [
                  'public key',
                  (
                    await api.post('/sessions', {
                      baseUrl: shared.url,
                      headers: publicHeaders(tenant.merchant_public_key),
                      body: {},
                    })
                  ).status,
                  201,
                ]
              : ['provider webhook', await signed(connector), 200];
        legitimate += 1;
        if (status !== expected) legitimateRefusals.push(`${what}: ${status}`);
      }
    };
    const abuse = async () => {
      for (let i = 0; i < NEIGHBOUR_REQUESTS; i += 1) await neighbour(i);
    };
    await Promise.all([client(), abuse()]);

    const refusedNeighbour = (neighbourAnswers.get(401) ?? 0) + (neighbourAnswers.get(429) ?? 0);
    reportSummary('shared-address', {
      neighbour_requests: 4 * BUDGET + NEIGHBOUR_REQUESTS,
      neighbour_401: neighbourAnswers.get(401) ?? 0,
      neighbour_429: neighbourAnswers.get(429) ?? 0,
      neighbour_other: 4 * BUDGET + NEIGHBOUR_REQUESTS - refusedNeighbour,
      legitimate_requests: legitimate,
      legitimate_refusals: legitimateRefusals.length,
    });
    expect(legitimateRefusals, legitimateRefusals.join(', ')).to.deep.equal([]);
    expect(refusedNeighbour, JSON.stringify([...neighbourAnswers])).to.equal(4 * BUDGET + NEIGHBOUR_REQUESTS);
  });
});
