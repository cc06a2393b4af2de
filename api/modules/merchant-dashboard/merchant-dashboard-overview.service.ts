/**
 * The merchant Dashboard's Overview (docs/api-decisions.md, "Merchant Dashboard overview"): the last 30 UTC days of
 * payments and subscriptions, read straight from the read models in four statements — no rollup to keep in step.
 * It shows one mode at a time (live by default): test charges approve without collecting money, and a test clock's
 * renewals would inflate MRR, so test data never mixes into live figures.
 * Each statement is scoped to the merchant first and reads an index made for it
 * (Migration20261238000000_overview_indexes), so a merchant with 100,000 transactions in the window is answered
 * from index pages, not from a scan of everyone's rows.
 */
import type { EntityManager } from '@mikro-orm/postgresql';

export const OVERVIEW_DAYS = 30;

/** A transaction the bank (or the buyer's pix/boleto) approved, whatever happened after (capture, refund, void). */
const APPROVED = [
  'pre_authorized',
  'authorized',
  'capture_pending',
  'voided',
  'refund_pending',
  'refunded',
  'partially_refunded',
  'charged_back',
];

export interface Amount {
  currency: string;
  amount: number;
}

export interface OverviewDay {
  date: string;
  approved: number;
  declined: number;
  /** approved / (approved + declined), 4 places; null on a day without a decided payment. */
  approval_rate: number | null;
  volume: Amount[];
  active_subscriptions: number;
  entered_dunning: number;
  recovered: number;
}

export interface OverviewConnector {
  connector_id: string;
  name: string | null;
  provider_slug: string;
  attempts: number;
  approved: number;
  declined: number;
  errors: number;
  approval_rate: number | null;
  volume: Amount[];
}

export interface Overview {
  livemode: boolean;
  from: string;
  to: string;
  days: OverviewDay[];
  payments: { approved: number; declined: number; approval_rate: number | null; volume: Amount[] };
  connectors: OverviewConnector[];
  subscriptions: {
    active: number;
    in_dunning: number;
    mrr: Amount[];
    mrr_in_dunning: Amount[];
    entered_dunning: number;
    recovered: number;
  };
}

const rate = (approved: number, decided: number) =>
  decided > 0 ? Math.round((approved / decided) * 10_000) / 10_000 : null;

/** Adds `amount` to the currency's entry (kept sorted by currency so answers compare stably). */
function add(amounts: Amount[], currency: string, amount: number): void {
  if (amount === 0) return;
  const found = amounts.find((entry) => entry.currency === currency);
  if (found) found.amount += amount;
  else amounts.push({ currency, amount });
  amounts.sort((a, b) => (a.currency < b.currency ? -1 : 1));
}

const isoDay = (date: Date) => date.toISOString().slice(0, 10);

const APPROVED_LIST = APPROVED.map((status) => `'${status}'`).join(', ');

/**
 * Payments of each UTC day (0 = the window's first) by connector and currency: count and captured amount. One index
 * range per day (a lateral over the 30 days) reads the covering index transactions_merchant_overview_idx without
 * touching the table, and each day's few groups hash in memory — grouping 100,000 rows by a computed day at once
 * sorted them on disk instead.
 */
export const PAYMENTS_SQL = `
  select d.i as day, x.connector_id, x.currency, x.approved, x.declined, x.volume
  from generate_series(0, ${OVERVIEW_DAYS - 1}) as d(i)
  cross join lateral (
    select connector_id, currency,
      count(*) filter (where status in (${APPROVED_LIST}))::int as approved,
      count(*) filter (where status = 'failed')::int as declined,
      coalesce(sum(amount_captured), 0)::bigint as volume
    from transactions
    where merchant_id = ? and charge_type = 'payment' and livemode = ?
      and created_at >= ?::timestamptz + d.i * interval '1 day'
      and created_at < ?::timestamptz + (d.i + 1) * interval '1 day'
    group by connector_id, currency
  ) as x`;

/**
 * Every finished attempt at each of the merchant's connectors since the window began (a cascade's declined first
 * try counts against its connector; card checks count too: the connector answered them). Read by connector and
 * start time from the covering index transaction_attempts_connector_overview_idx, without joining the transactions:
 * a connector belongs to one merchant, so its attempts are that merchant's; its mode is the mode of its charges.
 */
export const ATTEMPTS_SQL = `
  select c.id as connector_id, c.provider_slug, c.name,
    count(*) filter (where a.status = 'success')::int as approved,
    count(*) filter (where a.status = 'failed')::int as declined,
    count(*) filter (where a.status = 'error')::int as errors
  from merchant_connectors c
  join transaction_attempts a on a.connector_id = c.id and a.started_at >= ?
  where c.merchant_id = ? and (not c.is_test_mode) = ? and a.status <> 'pending'
  group by 1, 2, 3`;

/**
 * A subscription's monthly equivalent: what it bills per cycle (quantity included) times cycles in an average month
 * (365/12 days); a one-off ("none") recurs never.
 */
const MONTHLY = `current_amount * case billing_cycle
    when 'monthly' then 1.0 when 'quarterly' then 1.0 / 3 when 'half_yearly' then 1.0 / 6 when 'yearly' then 1.0 / 12
    when 'daily' then 365.0 / 12 when 'biweekly' then 365.0 / 12 / 14
    when 'custom' then 365.0 / 12 / custom_billing_days else 0 end`;

export const SUBSCRIPTIONS_SQL = `
  select currency,
    count(*) filter (where status = 'active')::int as active,
    count(*) filter (where status = 'dunning')::int as in_dunning,
    coalesce(round(sum(${MONTHLY}) filter (where status = 'active')), 0)::bigint as mrr,
    coalesce(round(sum(${MONTHLY}) filter (where status = 'dunning')), 0)::bigint as mrr_in_dunning
  from subscriptions
  where merchant_id = ? and livemode = ? and status in ('active', 'dunning')
  group by currency`;

/**
 * The subscriptions of each day, from the append-only transition log (every status change writes one): a
 * subscription was active at a day's end when its last transition by then left it active. Entered dunning and
 * recovered (a dunning retry that was paid) are the day's transitions of those kinds. Spans that ended before the
 * window are left out before the join.
 */
export const SUBSCRIPTION_DAYS_SQL = `
  with spans as (
    select transition_type, from_status, to_status, created_at as since,
      lead(created_at) over (partition by subscription_id order by created_at, seq) as until
    from subscription_transitions
    where merchant_id = ?
      and subscription_id in (select id from subscriptions where merchant_id = ? and livemode = ?)
  ), relevant as (
    select * from spans where until is null or until >= ?::timestamptz
  ), days as (
    select generate_series(?::timestamptz, ?::timestamptz, interval '1 day') as start
  )
  select to_char(d.start at time zone 'UTC', 'YYYY-MM-DD') as day,
    count(s.since) filter (where s.to_status = 'active' and (s.until is null or s.until >= d.start + interval '1 day'))::int
      as active,
    count(s.since) filter (where s.transition_type = 'dunning_entry' and s.since >= d.start)::int as entered_dunning,
    count(s.since) filter (where s.transition_type = 'dunning_retry' and s.from_status = 'dunning'
      and s.to_status = 'active' and s.since >= d.start)::int as recovered
  from days d
  left join relevant s on s.since < d.start + interval '1 day'
  group by d.start
  order by d.start`;

interface PaymentRow {
  day: number;
  connector_id: string | null;
  currency: string;
  approved: number;
  declined: number;
  volume: string;
}
interface AttemptRow {
  connector_id: string;
  provider_slug: string;
  name: string | null;
  approved: number;
  declined: number;
  errors: number;
}
interface SubscriptionRow {
  currency: string;
  active: number;
  in_dunning: number;
  mrr: string;
  mrr_in_dunning: string;
}
interface SubscriptionDayRow {
  day: string;
  active: number;
  entered_dunning: number;
  recovered: number;
}

/** The overview of the 30 UTC days that end today (`now`'s day), for one merchant's live or test data. */
export async function merchantOverview(
  em: EntityManager,
  merchantId: string,
  livemode: boolean,
  now = new Date(),
): Promise<Overview> {
  const today = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
  const from = new Date(today.getTime() - (OVERVIEW_DAYS - 1) * 86_400_000);
  const [payments, attempts, subscriptions, subscriptionDays] = [
    await em.execute<PaymentRow[]>(PAYMENTS_SQL, [merchantId, livemode, from, from]),
    await em.execute<AttemptRow[]>(ATTEMPTS_SQL, [from, merchantId, livemode]),
    await em.execute<SubscriptionRow[]>(SUBSCRIPTIONS_SQL, [merchantId, livemode]),
    await em.execute<SubscriptionDayRow[]>(SUBSCRIPTION_DAYS_SQL, [
      merchantId,
      merchantId,
      livemode,
      from,
      from,
      today,
    ]),
  ];

  const days = new Map<string, OverviewDay>();
  for (let offset = 0; offset < OVERVIEW_DAYS; offset += 1) {
    const date = isoDay(new Date(from.getTime() + offset * 86_400_000));
    days.set(date, {
      date,
      approved: 0,
      declined: 0,
      approval_rate: null,
      volume: [],
      active_subscriptions: 0,
      entered_dunning: 0,
      recovered: 0,
    });
  }
  const totals = { approved: 0, declined: 0, approval_rate: null as number | null, volume: [] as Amount[] };
  const volumeByConnector = new Map<string, Amount[]>();
  const dayList = [...days.values()];
  for (const row of payments) {
    const day = dayList[row.day];
    const volume = Number(row.volume);
    day.approved += row.approved;
    day.declined += row.declined;
    add(day.volume, row.currency, volume);
    totals.approved += row.approved;
    totals.declined += row.declined;
    add(totals.volume, row.currency, volume);
    if (row.connector_id) {
      const amounts = volumeByConnector.get(row.connector_id) ?? [];
      add(amounts, row.currency, volume);
      volumeByConnector.set(row.connector_id, amounts);
    }
  }
  for (const day of days.values()) day.approval_rate = rate(day.approved, day.approved + day.declined);
  totals.approval_rate = rate(totals.approved, totals.approved + totals.declined);

  const connectors = attempts
    .map((row): OverviewConnector => {
      const finished = row.approved + row.declined + row.errors;
      return {
        connector_id: row.connector_id,
        name: row.name,
        provider_slug: row.provider_slug,
        attempts: finished,
        approved: row.approved,
        declined: row.declined,
        errors: row.errors,
        approval_rate: rate(row.approved, finished),
        volume: volumeByConnector.get(row.connector_id) ?? [],
      };
    })
    .sort((a, b) => b.attempts - a.attempts || a.connector_id.localeCompare(b.connector_id));

  const summary = { active: 0, in_dunning: 0, mrr: [] as Amount[], mrr_in_dunning: [] as Amount[] };
  for (const row of subscriptions) {
    summary.active += row.active;
    summary.in_dunning += row.in_dunning;
    add(summary.mrr, row.currency, Number(row.mrr));
    add(summary.mrr_in_dunning, row.currency, Number(row.mrr_in_dunning));
  }
  let enteredDunning = 0;
  let recovered = 0;
  for (const row of subscriptionDays) {
    const day = days.get(row.day);
    if (!day) continue;
    day.active_subscriptions = row.active;
    day.entered_dunning = row.entered_dunning;
    day.recovered = row.recovered;
    enteredDunning += row.entered_dunning;
    recovered += row.recovered;
  }

  return {
    livemode,
    from: isoDay(from),
    to: isoDay(today),
    days: [...days.values()],
    payments: totals,
    connectors,
    subscriptions: { ...summary, entered_dunning: enteredDunning, recovered },
  };
}
