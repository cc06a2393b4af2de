/**
 * The merchant Dashboard's Overview reads (api/modules/merchant-dashboard/merchant-dashboard-overview.service.ts
 * adds them up): four statements straight from the read models — transactions, transaction_attempts, subscriptions
 * and subscription_transitions — over the last 30 UTC days (a test clock's subscriptions over the clock's), for one
 * merchant's live or test data. Each is scoped to the merchant first and reads an index made for it
 * (Migration20261238000000_overview_indexes), so a merchant with 100,000 transactions in the window is answered from
 * index pages, not from a scan of everyone's rows.
 */
import type { EntityManager } from '@mikro-orm/postgresql';

export const OVERVIEW_DAYS = 30;

/** One merchant's live (true) or test (false) data. */
export interface OverviewScope {
  merchantId: string;
  livemode: boolean;
}

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

const APPROVED_LIST = APPROVED.map((status) => `'${status}'`).join(', ');

/**
 * Payments of each UTC day (0 = the window's first) by connector and currency: count and captured amount. One index
 * range per day (a lateral over the 30 days) reads the covering index transactions_merchant_overview_idx without
 * touching the table, and each day's few groups hash in memory — grouping 100,000 rows by a computed day at once
 * sorted them on disk instead.
 */
const PAYMENTS_SQL = `
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
const ATTEMPTS_SQL = `
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

const SUBSCRIPTIONS_SQL = `
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
 * A subscription whose customer is on a test clock lives in the clock's time (its transitions are dated by the
 * clock): its window is the 30 days up to the clock's day, moved onto the real window by the whole days between the
 * two, so the clock's day counts as today. The shift is applied after the replay order is read.
 */
const SUBSCRIPTION_DAYS_SQL = `
  with shifts as (
    select s.id, coalesce(date_trunc('day', k.frozen_time, 'UTC') - ?::timestamptz, interval '0 days') as shift
    from subscriptions s
    join customers c on c.id = s.customer_id
    left join test_clocks k on k.id = c.test_clock_id
    where s.merchant_id = ? and s.livemode = ?
  ), spans as (
    select t.transition_type, t.from_status, t.to_status, t.created_at - h.shift as since,
      lead(t.created_at) over (partition by t.subscription_id order by t.created_at, t.seq) - h.shift as until
    from subscription_transitions t
    join shifts h on h.id = t.subscription_id
    where t.merchant_id = ?
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

export interface PaymentRow {
  day: number;
  connector_id: string | null;
  currency: string;
  approved: number;
  declined: number;
  volume: string;
}
export interface AttemptRow {
  connector_id: string;
  provider_slug: string;
  name: string | null;
  approved: number;
  declined: number;
  errors: number;
}
export interface SubscriptionRow {
  currency: string;
  active: number;
  in_dunning: number;
  mrr: string;
  mrr_in_dunning: string;
}
export interface SubscriptionDayRow {
  day: string;
  active: number;
  entered_dunning: number;
  recovered: number;
}

/** Payments of each day of the window that starts at `from` (day 0), by connector and currency. */
export async function overviewPaymentRows(em: EntityManager, scope: OverviewScope, from: Date): Promise<PaymentRow[]> {
  return em.execute<PaymentRow[]>(PAYMENTS_SQL, [scope.merchantId, scope.livemode, from, from]);
}

/** Finished attempts at each of the merchant's connectors of this mode since `from`. */
export async function overviewAttemptRows(em: EntityManager, scope: OverviewScope, from: Date): Promise<AttemptRow[]> {
  return em.execute<AttemptRow[]>(ATTEMPTS_SQL, [from, scope.merchantId, scope.livemode]);
}

/** The merchant's active and dunning subscriptions now, with their monthly equivalents, by currency. */
export async function overviewSubscriptionRows(em: EntityManager, scope: OverviewScope): Promise<SubscriptionRow[]> {
  return em.execute<SubscriptionRow[]>(SUBSCRIPTIONS_SQL, [scope.merchantId, scope.livemode]);
}

/**
 * The subscriptions of each UTC day from `from` to `to` (both day starts, inclusive; `to` is today), a test clock's
 * in its own time.
 */
export async function overviewSubscriptionDayRows(
  em: EntityManager,
  scope: OverviewScope,
  days: { from: Date; to: Date },
): Promise<SubscriptionDayRow[]> {
  return em.execute<SubscriptionDayRow[]>(SUBSCRIPTION_DAYS_SQL, [
    days.to,
    scope.merchantId,
    scope.livemode,
    scope.merchantId,
    days.from,
    days.from,
    days.to,
  ]);
}
