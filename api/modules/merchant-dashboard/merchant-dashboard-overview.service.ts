/**
 * The merchant Dashboard's Overview (docs/api-decisions.md, "Merchant Dashboard overview"): the last 30 UTC days of
 * payments and subscriptions, read straight from the read models in four statements — no rollup to keep in step.
 * It shows one mode at a time (live by default): test charges approve without collecting money, and a test clock's
 * renewals would inflate MRR, so test data never mixes into live figures.
 * The statements, each scoped to the merchant and served by an index made for it, are in
 * db/repositories/merchant-overview.repository.ts; this adds their rows up.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  OVERVIEW_DAYS,
  overviewAttemptRows,
  overviewPaymentRows,
  overviewSubscriptionDayRows,
  overviewSubscriptionRows,
} from '../../../db/repositories/merchant-overview.repository';

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

/** The overview of the 30 UTC days that end today (`now`'s day), for one merchant's live or test data. */
export async function merchantOverview(
  em: EntityManager,
  merchantId: string,
  livemode: boolean,
  now = new Date(),
): Promise<Overview> {
  const today = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
  const from = new Date(today.getTime() - (OVERVIEW_DAYS - 1) * 86_400_000);
  const scope = { merchantId, livemode };
  const [payments, attempts, subscriptions, subscriptionDays] = [
    await overviewPaymentRows(em, scope, from),
    await overviewAttemptRows(em, scope, from),
    await overviewSubscriptionRows(em, scope),
    await overviewSubscriptionDayRows(em, scope, { from, to: today }),
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
