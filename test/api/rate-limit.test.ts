import { expect } from 'chai';
import { api } from '../helpers/http';
import { createTenant, keyWithScopes } from '../helpers/factories';
import { stack } from '../helpers/stack';
import { startApi } from '../../api/server';
import { keyId, rows } from '../helpers/merchants';
import { LEASE_SHARE } from '../../api/http/rate-limit';

/** Sends n requests one after another; returns the statuses. */
async function burst(key: string, n: number, baseUrls: string[]): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < n; i += 1) {
    statuses.push(
      (await api.get('/customers', { key, query: { limit: 1 }, baseUrl: baseUrls[i % baseUrls.length] })).status,
    );
  }
  return statuses;
}

describe('Rate limit: 100 requests per 60-second window per API key', () => {
  // Counts live in fixed windows; starting right after a boundary keeps all requests in one window.
  async function atWindowStart(): Promise<void> {
    const windowMs = stack().config.rateLimit.windowSeconds * 1000;
    const intoWindow = Date.now() % windowMs;
    if (intoWindow > windowMs - 20_000) await new Promise((resolve) => setTimeout(resolve, windowMs - intoWindow + 50));
  }

  it('answers the 101st request with 429 RATE_LIMIT_EXCEEDED, Retry-After and RateLimit headers', async function () {
    this.timeout(120_000);
    await atWindowStart();
    const tenant = await createTenant();
    const key = await keyWithScopes(tenant, ['customers:read']);
    const statuses = await burst(key, 100, [stack().url]);
    expect(statuses.every((status) => status === 200)).to.equal(true);
    const limited = await api.get('/customers', { key });
    expect(limited.status).to.equal(429);
    expect(limited.body.error).to.include({ type: 'rate_limit_error', code: 'RATE_LIMIT_EXCEEDED' });
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).to.be.within(1, 60);
    expect(limited.headers.get('ratelimit-limit')).to.equal('100');
    expect(limited.headers.get('ratelimit-remaining')).to.equal('0');
    expect(limited.headers.get('ratelimit-policy')).to.equal('100;w=60');
  });

  it('reports the remaining budget on successful responses', async () => {
    const tenant = await createTenant();
    const first = await api.get('/customers', { key: tenant.merchant_secret_key });
    const second = await api.get('/customers', { key: tenant.merchant_secret_key });
    expect(
      Number(first.headers.get('ratelimit-remaining')) - Number(second.headers.get('ratelimit-remaining')),
    ).to.equal(1);
  });

  it('gives each key its own budget', async function () {
    this.timeout(120_000);
    await atWindowStart();
    const tenant = await createTenant();
    const exhausted = await keyWithScopes(tenant, ['customers:read']);
    await burst(exhausted, 101, [stack().url]);
    expect((await api.get('/customers', { key: exhausted })).status).to.equal(429);
    expect((await api.get('/customers', { key: tenant.merchant_secret_key })).status).to.equal(200);
  });

  it('shares one budget across several API processes on the same database', async function () {
    this.timeout(120_000);
    await atWindowStart();
    const second = await startApi(stack().config, 0);
    try {
      const tenant = await createTenant();
      const key = await keyWithScopes(tenant, ['customers:read']);
      const statuses = await burst(key, 100, [stack().url, second.url]);
      expect(statuses.filter((status) => status === 200)).to.have.length(100);
      expect((await api.get('/customers', { key, baseUrl: second.url })).status).to.equal(429);
      expect((await api.get('/customers', { key })).status).to.equal(429);
    } finally {
      await second.stop();
    }
  });

  it('never admits more than the limit across two API processes under concurrent load (at most 10 % fewer)', async function () {
    this.timeout(120_000);
    await atWindowStart();
    const second = await startApi(stack().config, 0);
    try {
      const tenant = await createTenant();
      const key = await keyWithScopes(tenant, ['customers:read']);
      const baseUrls = [stack().url, second.url];
      // 160 requests, 8 at a time, alternating processes: both keep asking after the budget of 100 is gone.
      const statuses: number[] = [];
      for (let batch = 0; batch < 20; batch += 1) {
        statuses.push(
          ...(await Promise.all(Array.from({ length: 8 }, (_, i) => burst(key, 1, [baseUrls[i % 2]])))).flat(),
        );
      }
      const admitted = statuses.filter((status) => status === 200).length;
      expect(admitted).to.be.at.most(100);
      // Blocks leased by one process and unused are lost to the other: at most a tenth of the budget.
      expect(admitted).to.be.at.least(90);
      expect(statuses.filter((status) => status !== 200 && status !== 429)).to.deep.equal([]);
    } finally {
      await second.stop();
    }
  });

  it('leases the budget in blocks: one write to the shared counter serves several requests', async () => {
    const tenant = await createTenant();
    const key = await keyWithScopes(tenant, ['customers:read']);
    const first = await api.get('/customers', { key });
    expect(first.headers.get('ratelimit-remaining')).to.equal('99');
    const [counter] = await rows('select count from rate_limit_counters where bucket = ?', [await keyId(key)]);
    // The first lease is a tenth of the budget; the request used one of them.
    expect(counter.count).to.equal(100 / LEASE_SHARE);
    const second = await api.get('/customers', { key });
    expect(second.headers.get('ratelimit-remaining')).to.equal('98');
    const [after] = await rows('select count from rate_limit_counters where bucket = ?', [await keyId(key)]);
    expect(after.count).to.equal(100 / LEASE_SHARE);
  });
});
