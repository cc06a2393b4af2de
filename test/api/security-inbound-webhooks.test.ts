/**
 * The inbound provider webhook endpoint is throttled: refused deliveries are counted per
 * client address (past the budget: 429 after the one lookup by connector id) and wrong-token deliveries per connector (past the budget:
 * 429 and no more receipt rows), while a delivery with the connector's real token is never held back by the latter.
 */
import { expect } from 'chai';
import { createHmac, randomUUID } from 'node:crypto';
import { loadConfig } from '../../domain/platform/config';
import { startApi, type RunningApi } from '../../api/server';
import { REFUSED_WEBHOOKS_PER_ADDRESS, REFUSED_WEBHOOKS_PER_CONNECTOR } from '../../api/http/refusal-budgets';
import { createTenant } from '../helpers/factories';
import { rows } from '../helpers/connectors';
import { stack } from '../helpers/stack';
import { cascade, type CascadeConnector } from '../helpers/transactions';

describe('Inbound provider webhooks are throttled', () => {
  let limited: RunningApi;
  before(async () => {
    // Behind a trusted loopback proxy, so each delivery can come from the address the test names.
    limited = await startApi(loadConfig({ ...stack().env, TRUSTED_PROXIES: '127.0.0.0/8,::1' }), 0);
  });
  after(() => limited.stop());

  const post = async (connectorId: string, token: string, from: string, body = '{}', headers = {}) => {
    const res = await fetch(`${limited.url}/api/v1/webhooks/inbound/${connectorId}?token=${token}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': from, ...headers },
      body,
    });
    return { status: res.status, body: (await res.json()) as any };
  };

  /** A provider_a event of a type Switchyard does not handle, signed with the connector's secret: 200 ignored. */
  const signedDelivery = (connector: CascadeConnector, from: string) => {
    const id = `evt_${randomUUID().replace(/-/g, '')}`;
    const body = JSON.stringify({ id, type: 'account.updated', created: Math.floor(Date.now() / 1000), data: {} });
    const timestamp = String(Math.floor(Date.now() / 1000));
    const key = Buffer.from(connector.webhookSecret.replace(/^whsec_/, ''), 'base64');
    const signature = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64');
    const token = new URL(connector.webhookUrl).searchParams.get('token') ?? '';
    return post(connector.id, token, from, body, {
      'webhook-id': id,
      'webhook-timestamp': timestamp,
      'webhook-signature': `v1,${signature}`,
    });
  };

  it(`an address past ${REFUSED_WEBHOOKS_PER_ADDRESS} refused deliveries a minute gets 429 without a receipt; others do not`, async () => {
    const answers = [];
    for (let i = 0; i < REFUSED_WEBHOOKS_PER_ADDRESS + 2; i += 1)
      answers.push((await post(`conn_${randomUUID().slice(0, 8)}`, 'x', '198.18.20.1')).status);
    expect(
      answers.slice(0, REFUSED_WEBHOOKS_PER_ADDRESS).every((s) => s === 401),
      answers.join(','),
    ).to.equal(true);
    expect(answers.slice(REFUSED_WEBHOOKS_PER_ADDRESS)).to.deep.equal([429, 429]);
    expect((await post('conn_unknown', 'x', '198.18.20.2')).status).to.equal(401);
  });

  it(`wrong tokens naming one connector from many addresses: ${REFUSED_WEBHOOKS_PER_CONNECTOR} receipts, then 429 and none; the real token still gets through`, async function () {
    this.timeout(60_000);
    const tenant = await createTenant();
    const [connector] = await cascade(tenant, ['provider_a']);
    const answers = [];
    for (let i = 0; i < REFUSED_WEBHOOKS_PER_CONNECTOR + 5; i += 1)
      answers.push((await post(connector.id, `wrong${i}`, `198.18.21.${i + 1}`)).status);
    expect(
      answers.slice(0, REFUSED_WEBHOOKS_PER_CONNECTOR).every((s) => s === 401),
      answers.join(','),
    ).to.equal(true);
    expect(
      answers.slice(REFUSED_WEBHOOKS_PER_CONNECTOR).every((s) => s === 429),
      answers.join(','),
    ).to.equal(true);
    const [receipts] = await rows(
      `select count(*)::int as n from provider_webhook_receipts where connector_id = ? and reason = 'unknown_connector'`,
      [connector.id],
    );
    expect(receipts.n).to.equal(REFUSED_WEBHOOKS_PER_CONNECTOR);
    const real = await signedDelivery(connector, '198.18.22.1');
    expect(real.status, JSON.stringify(real.body)).to.equal(200);
  });
});
