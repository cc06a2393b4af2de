/**
 * The leak test: a full enrolment with a known PAN, CVC and cardholder name, through an API whose logs are
 * captured at trace level, then every text/json column of every table, the captured log and the Temporal history
 * of the verification workflow are searched for them. Zero hits.
 */
import { expect } from 'chai';
import { startApi, type RunningApi } from '../../api/server';
import { createLogger } from '../../domain/platform/logger';
import { api } from '../helpers/http';
import { createTenant, type Tenant } from '../helpers/factories';
import { stack } from '../helpers/stack';
import {
  cardConnector,
  createCustomer,
  encryptCard,
  instrumentsPath,
  publicHeaders,
  tokenBody,
  type SessionData,
  withEnrolmentToken,
} from '../helpers/vault';

const PAN = '4242424242424242';
const CVC = '739';
const NAME = 'Grace Brewster Hopper';
// A CVC is short: count it only where it stands alone, not inside random base64/base62 text, nor as the local part's
// last word of an e-mail address (the guides' "club.$RANDOM@example.com" is club.739@… once in 32,768 tries).
const CVC_ALONE = new RegExp(`(^|[^0-9A-Za-z_-])${CVC}([^0-9A-Za-z_@-]|$)`);

function leaks(text: string): string[] {
  return [text.includes(PAN) && 'PAN', CVC_ALONE.test(text) && 'CVC', text.includes(NAME) && 'name'].filter(
    Boolean,
  ) as string[];
}

/** Every string in a Temporal history, with payload bytes decoded. */
function historyStrings(value: unknown, out: string[] = []): string[] {
  if (value instanceof Uint8Array) out.push(Buffer.from(value).toString('utf8'), Buffer.from(value).toString('base64'));
  else if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) value.forEach((item) => historyStrings(item, out));
  else if (value && typeof value === 'object') Object.values(value).forEach((item) => historyStrings(item, out));
  return out;
}

describe('Card data leak test (database, logs, Temporal history)', () => {
  let tenant: Tenant;
  let logged: string[];
  let app: RunningApi;

  before(async function () {
    this.timeout(60_000);
    logged = [];
    const logger = createLogger('trace', { write: (line: string) => void logged.push(line) });
    app = await startApi(stack().config, 0, { logger });
    tenant = await createTenant();
    const connector = await cardConnector(tenant, 'provider_a');
    const profile = await api.post(`/merchants/${tenant.merchant_id}/routing-profiles`, {
      key: tenant.merchant_secret_key,
      body: { name: 'Cards', is_active: true, payment_method: '*', default_merchant_connector_id: connector.id },
    });
    expect(profile.status, profile.text).to.equal(201);
  });

  after(async () => {
    await app.stop();
  });

  it('finds neither the PAN, the CVC nor the cardholder name anywhere after a full enrolment', async function () {
    this.timeout(60_000);
    const baseUrl = app.url;
    const customerId = await createCustomer(tenant);
    const card = { number: PAN, cvc: CVC, name: NAME };

    // Browser enrolment with zero-amount verification (runs the Temporal workflow) …
    const opened = await api.post('/sessions', {
      baseUrl,
      headers: publicHeaders(tenant.merchant_public_key),
      body: {},
    });
    const session = opened.body as SessionData;
    const mint = async () => {
      const res = await api.post('/tokens', {
        baseUrl,
        headers: publicHeaders(tenant.merchant_public_key, session.sessionId),
        body: tokenBody(session, card, { purpose: 'instrument_enrollment' }),
      });
      expect(res.status, res.text).to.equal(201);
      return res.body;
    };
    const token = await mint();
    const enrolled = await api.post(`/sessions/${session.sessionId}/payment-instruments`, {
      baseUrl,
      headers: publicHeaders(tenant.merchant_public_key),
      body: await withEnrolmentToken(tenant, { tokenId: token.tokenId, customerId, currency: 'USD' }),
    });
    expect(enrolled.status, enrolled.text).to.equal(201);
    expect(enrolled.body.verified).to.equal(true);
    // … a server-side enrolment of the same card (deduplicated), and failures that echo input.
    const second = await mint();
    const saved = await api.post(instrumentsPath(tenant.merchant_id), {
      baseUrl,
      key: tenant.merchant_secret_key,
      body: { customer_id: customerId, card_ciphertext_id: second.tokenId },
    });
    expect(saved.body.deduplicated).to.equal(true);
    const reused = await api.post(instrumentsPath(tenant.merchant_id), {
      baseUrl,
      key: tenant.merchant_secret_key,
      body: { customer_id: customerId, card_ciphertext_id: second.tokenId },
    });
    expect(reused.status).to.equal(409);
    const badCvc = await api.post('/tokens', {
      baseUrl,
      headers: publicHeaders(tenant.merchant_public_key, session.sessionId),
      body: {
        encryptedCard: encryptCard(session, { number: PAN, cvc: `${CVC}9` }),
        metadata: { brand: 'visa', last4: '4242', bin: '424242', expiryMonth: '12', expiryYear: '2099' },
      },
    });
    expect(badCvc.status).to.equal(400);
    for (const response of [enrolled, saved, reused, badCvc])
      expect(leaks(response.text), response.text).to.deep.equal([]);

    // Database: every text, varchar, json and jsonb column of every table.
    const em = stack().orm.em.fork();
    const columns = await em.execute<{ table_name: string; column_name: string }[]>(
      `select c.table_name, c.column_name from information_schema.columns c
         join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name
        where c.table_schema = 'public' and t.table_type = 'BASE TABLE'
          and (c.data_type in ('text', 'character varying', 'json', 'jsonb') or c.udt_name in ('_text', '_varchar'))`,
    );
    expect(columns.length).to.be.above(20);
    const hits: string[] = [];
    for (const { table_name: table, column_name: column } of columns) {
      const [row] = await em.execute<{ pan: number; cvc: number; name: number }[]>(
        `select count(*) filter (where "${column}"::text like ?) as pan,
                count(*) filter (where "${column}"::text ~ ?) as cvc,
                count(*) filter (where "${column}"::text like ?) as name
           from "${table}"`,
        [`%${PAN}%`, CVC_ALONE.source, `%${NAME}%`],
      );
      for (const kind of ['pan', 'cvc', 'name'] as const)
        if (Number(row[kind]) > 0) hits.push(`${table}.${column}: ${kind}`);
    }
    expect(hits, 'database hits').to.deep.equal([]);

    // Logs of the API that handled every request above, at trace level.
    expect(logged.length).to.be.above(3);
    expect(leaks(logged.join('\n')), 'log hits').to.deep.equal([]);

    // The verification workflow's whole history: input, activity inputs and results, the workflow result.
    const handle = stack().api.deps.temporal.client.workflow.getHandle(`card-verification-${token.tokenId}`);
    const history = await handle.fetchHistory();
    expect(history.events?.length).to.be.above(5);
    const strings = historyStrings(history);
    expect(strings.join('\n')).to.include(token.tokenId);
    expect(leaks(strings.join('\n')), 'Temporal history hits').to.deep.equal([]);
  });
});
