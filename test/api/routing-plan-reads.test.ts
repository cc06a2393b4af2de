/**
 * The charge's routing plan is made before its first provider call, so its reads are on every charge's path: the
 * profile, its nodes, the connectors with their providers and circuits, and the decline table are one statement
 * (docs/benchmarks.md, statements per charge). The plan it makes is the one the engine makes from those rows.
 */
import { expect } from 'chai';
import { planAttempts } from '../../domain/routing/routing.attempt-plan';
import { request } from '../helpers/http';
import { createTenant, type Tenant } from '../helpers/factories';
import { stack } from '../helpers/stack';
import { cascade, type CascadeConnector } from '../helpers/transactions';

const CARD_CHARGE = {
  paymentMethod: 'credit_card' as const,
  currency: 'USD',
  amount: 1500,
  cardBrand: 'visa',
  binCountry: 'US',
  isRecurring: false,
  installments: 1,
  randomDraw: 0.5,
};

describe('Routing: a charge plan reads in one statement', () => {
  let tenant: Tenant;
  let connectors: CascadeConnector[];

  before(async () => {
    tenant = await createTenant();
    connectors = await cascade(tenant, ['provider_a', 'provider_a', 'provider_a']);
  });

  /** The plan, and the SQL statements planning sent. */
  async function plan() {
    const em = stack().orm.em.fork();
    const statements: string[] = [];
    const knex = em.getConnection().getKnex();
    const count = (query: { sql: string }) => void statements.push(query.sql);
    knex.on('query', count);
    try {
      return { plan: await planAttempts(em, tenant.merchant_id, CARD_CHARGE), statements };
    } finally {
      knex.off('query', count);
    }
  }

  it('plans the cascade with the merchant decline table in one statement', async () => {
    const put = await request('PUT', `/merchants/${tenant.merchant_id}/routing-settings`, {
      key: tenant.merchant_secret_key,
      body: { decline_actions: { soft_decline: 'stop' } },
    });
    expect(put.status, put.text).to.equal(200);

    const { plan: made, statements } = await plan();
    expect(statements).to.have.length(1);
    expect(made.attempts.map((attempt) => attempt.connectorId)).to.deep.equal(connectors.map(({ id }) => id));
    expect(made.attempts.map((attempt) => attempt.providerSlug)).to.deep.equal([
      'provider_a',
      'provider_a',
      'provider_a',
    ]);
    expect(made.cascade?.categories.soft_decline).to.equal('stop');
    expect(made.decision.skipped).to.deep.equal([]);
  });

  it('skips a connector whose circuit is open (circuit_open), still in one statement', async () => {
    const opened = await request('POST', `/merchants/${tenant.merchant_id}/connectors/${connectors[1].id}/circuit`, {
      key: tenant.merchant_secret_key,
      body: { state: 'open' },
    });
    expect(opened.status, opened.text).to.equal(200);

    const { plan: made, statements } = await plan();
    expect(statements).to.have.length(1);
    expect(made.attempts.map((attempt) => attempt.connectorId)).to.deep.equal([connectors[0].id, connectors[2].id]);
    expect(made.decision.skipped.map(({ connector_id, reason }) => ({ connector_id, reason }))).to.deep.equal([
      { connector_id: connectors[1].id, reason: 'circuit_open' },
    ]);
  });

  it('a merchant with no active profile gets no attempts (and no decline table until it saves one)', async () => {
    const bare = await createTenant();
    const em = stack().orm.em.fork();
    const made = await planAttempts(em, bare.merchant_id, CARD_CHARGE);
    expect(made.attempts).to.deep.equal([]);
    expect(made.profileId).to.equal(null);
    expect(made.cascade).to.equal(null);
  });
});
