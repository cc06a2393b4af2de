/**
 * The merchant Dashboard's Overview on a big merchant: one merchant with BENCH_OVERVIEW_TRANSACTIONS
 * (default 100,000) payments spread over the last 30 days — 1 attempt each, 2 (a cascade) for the declines — across
 * two connectors, and BENCH_OVERVIEW_SUBSCRIPTIONS (default 2,000) subscriptions with their transition log, some in
 * dunning and some recovered. Then GET /merchant/overview one request at a time as a signed-in member: latency
 * p50/p95/p99 of the whole request (auth, four statements, the answer).
 *
 * The rows are written with SQL in a few statements (the read models the endpoint reads, shaped as the charge and
 * subscription workflows write them), then VACUUM ANALYZE, as autovacuum would have done on a merchant that grew to
 * this size. `npm run bench -- --only overview`.
 */
import { randomUUID } from 'node:crypto';
import { rows } from '../test/helpers/db';
import { createMerchantUser, signIn } from '../test/helpers/dashboard';
import { postConnector } from '../test/helpers/connectors';
import { subscribed } from '../test/helpers/subscriptions';
import type { Suite } from './harness';

function envCount(name: string, fallback: number): number {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer`);
  return value;
}

/** Seeds the merchant; returns the Dashboard headers of one of its owners. */
export async function seedMerchant(
  apiUrl: string,
  transactions: number,
  subscriptions: number,
  log: (m: string) => void,
) {
  const anchor = await subscribed(new Date());
  const { tenant } = anchor;
  const c1 = anchor.connector.id;
  const c2 = (await postConnector(tenant, 'provider_b', { name: 'Second acquirer' })).id;
  log(`overview: seeding ${transactions} transactions and ${subscriptions} subscriptions for ${tenant.merchant_id}`);
  // i's residue picks the outcome: 85 % captured, 3 % refunded, 10 % declined after a cascade, 2 % still pending.
  await rows(
    `insert into transactions (id, organization_id, merchant_id, amount, amount_authorized, amount_captured,
       amount_refunded, currency, payment_method, charge_type, country, status, capture, connector_id, workflow_id,
       created_at, updated_at)
     select 'tx_bench' || i, ?, ?, 1000 + i % 9000,
       case when i % 100 < 88 then 1000 + i % 9000 else 0 end,
       case when i % 100 < 88 then 1000 + i % 9000 else 0 end,
       case when i % 100 between 85 and 87 then 1000 + i % 9000 else 0 end,
       'BRL', 'credit_card', 'payment', 'BR',
       case when i % 100 < 85 then 'authorized' when i % 100 < 88 then 'refunded'
         when i % 100 < 98 then 'failed' else 'pending' end,
       true,
       case when i % 100 < 88 then (case when i % 3 = 0 then ? else ? end) when i % 100 >= 98 then ? end,
       'charge-tx_bench' || i, t, t
     from generate_series(1, ?) as i,
       lateral (select now() - (i % 30) * interval '1 day' - (i % 86400) * interval '1 second' as t) as at`,
    [tenant.organization_id, tenant.merchant_id, c2, c1, c1, transactions],
  );
  await rows(
    `insert into transaction_attempts (id, transaction_id, attempt_number, is_fallback, connector_id, provider_slug,
       status, started_at, finished_at)
     select gen_random_uuid(), id, 1, false, coalesce(connector_id, ?),
       case when connector_id = ? then 'provider_b' else 'provider_a' end,
       case status when 'failed' then 'failed' when 'pending' then 'pending' else 'success' end,
       created_at, case when status = 'pending' then null else created_at end
     from transactions where merchant_id = ? and id like 'tx_bench%'`,
    [c1, c2, tenant.merchant_id],
  );
  await rows(
    `insert into transaction_attempts (id, transaction_id, attempt_number, is_fallback, connector_id, provider_slug,
       status, started_at, finished_at)
     select gen_random_uuid(), id, 2, true, ?, 'provider_b', 'failed', created_at, created_at
     from transactions where merchant_id = ? and id like 'tx_bench%' and status = 'failed'`,
    [c2, tenant.merchant_id],
  );
  // Copies of the real subscription (its customer, card and offer), each on its own plan: 1 in 10 in dunning since
  // last week, 1 in 10 recovered, the rest active since a day of the last 60.
  await rows(
    `insert into subscriptions (id, organization_id, merchant_id, customer_id, current_offer_id, product_id, plan_key,
       billing_cycle, currency, current_amount, current_period_start, current_period_end, billing_anchor_at, status,
       payment_instrument_id, country, origin_transaction_id, created_at)
     select 'sub_bench' || i, organization_id, merchant_id, customer_id, current_offer_id, product_id, 'bench-' || i,
       case when i % 4 = 0 then 'yearly' else 'monthly' end, currency, 1000 + i % 5000, current_period_start,
       current_period_end, billing_anchor_at, case when i % 10 = 0 then 'dunning' else 'active' end,
       payment_instrument_id, country, 'bench-origin-' || i, now() - (i % 60) * interval '1 day'
     from subscriptions, generate_series(1, ?) as i where id = ?`,
    [subscriptions, anchor.state.subscriptionId],
  );
  await rows(
    `insert into subscription_transitions (id, subscription_id, merchant_id, transition_type, from_status, to_status,
       triggered_by, transition_key, created_at)
     select 'str_' || md5(s.id || t.kind), s.id, s.merchant_id, t.kind, t.from_status, t.to_status, 'system',
       s.id || '-' || t.kind, t.at
     from subscriptions s
     cross join lateral (values
       ('creation', null, 'active', s.created_at),
       (case when s.status = 'dunning' or s.id ~ '1$' then 'dunning_entry' end, 'active', 'dunning',
         now() - interval '7 days'),
       (case when s.id ~ '1$' then 'dunning_retry' end, 'dunning', 'active', now() - interval '3 days')
     ) as t(kind, from_status, to_status, at)
     where s.merchant_id = ? and s.id like 'sub_bench%' and t.kind is not null`,
    [tenant.merchant_id],
  );
  await rows('vacuum analyze transactions, transaction_attempts, subscriptions, subscription_transitions');
  const user = await createMerchantUser(tenant.organization_id, [tenant.merchant_id]);
  const { access_token: token } = await signIn('merchant', user, apiUrl);
  return { authorization: `Bearer ${token as string}`, 'x-merchant-id': tenant.merchant_id };
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

export const overviewSuite: Suite = {
  name: 'merchant overview at 100,000 transactions',
  async run(ctx) {
    const transactions = envCount('BENCH_OVERVIEW_TRANSACTIONS', 100_000);
    const subscriptions = envCount('BENCH_OVERVIEW_SUBSCRIPTIONS', 2_000);
    const requests = envCount('BENCH_OVERVIEW_REQUESTS', ctx.quick ? 30 : 100);
    const headers = await seedMerchant(ctx.apiUrl, transactions, subscriptions, ctx.log);
    const url = `${ctx.apiUrl}/api/v1/merchant/overview`;
    const problems: string[] = [];
    const once = async () => {
      const started = performance.now();
      const response = await fetch(url, { headers: { ...headers, 'x-request-id': randomUUID() } });
      const body = (await response.json()) as { payments?: { approved: number; declined: number } };
      const took = performance.now() - started;
      if (response.status !== 200) problems.push(`overview: ${response.status} ${JSON.stringify(body)}`);
      return { took, body };
    };
    const first = await once();
    ctx.log(
      `overview: first answer in ${first.took.toFixed(0)} ms, ${first.body.payments?.approved} approved / ` +
        `${first.body.payments?.declined} declined; then ${requests} requests one at a time`,
    );
    for (let i = 0; i < 3; i += 1) await once();
    const times: number[] = [];
    const started = performance.now();
    for (let i = 0; i < requests; i += 1) times.push((await once()).took);
    const seconds = (performance.now() - started) / 1000;
    times.sort((a, b) => a - b);
    const [p50, p95, p99] = [50, 95, 99].map((p) => percentile(times, p));
    const name = `GET /merchant/overview (${transactions.toLocaleString('en')} transactions, 1 connection)`;
    const line =
      `${name}: p50 ${p50.toFixed(1)} ms, p95 ${p95.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms over ${requests} ` +
      `requests (${subscriptions.toLocaleString('en')} subscriptions)`;
    return {
      rows: [
        {
          scenario: name,
          requestsPerSecond: requests / seconds,
          p50,
          p99,
          non2xx: problems.length,
          ratio: requests / seconds / ctx.baseline,
        },
      ],
      figures: { 'overview.p50': p50, 'overview.p95': p95 },
      text: [line],
      markdown: [`- ${line}`],
      problems,
    };
  },
};
