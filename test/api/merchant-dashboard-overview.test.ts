/**
 * GET /merchant/overview (docs/api-decisions.md, "Merchant Dashboard overview"): the last 30 UTC days of payments
 * and subscriptions from the read models. One real subscription (a real first charge through POST /transactions)
 * anchors the merchant; the rest of the read-model rows are written straight to the tables, at known days, so every
 * figure is known: volume, approval rates overall, by day and by connector, active subscriptions by day, MRR,
 * dunning and recovered. Another merchant's rows, written the same way, never count. Every row here is test data (a
 * test-mode connector is the only kind that approves on this machine), so the Overview is read with livemode=false;
 * that live is the default and the two never mix is test/api/livemode.test.ts's rule.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { api } from '../helpers/http';
import { rows } from '../helpers/db';
import { bearer, createMerchantUser, signIn } from '../helpers/dashboard';
import { postConnector } from '../helpers/connectors';
import { subscribed, type Subscribed } from '../helpers/subscriptions';
import { expectError } from '../helpers/envelope';
import { customerInput, type Tenant } from '../helpers/factories';
import { createClock } from '../helpers/test-clocks';

const DAY = 86_400_000;
const startOfToday = () => {
  const now = new Date();
  return Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
};
/** Noon (UTC) of the day `daysAgo` before today: far from either midnight. */
const noonOf = (daysAgo: number) => new Date(startOfToday() - daysAgo * DAY + 12 * 3_600_000);

interface SeedTransaction {
  status: string;
  currency?: string;
  amount: number;
  captured?: number;
  refunded?: number;
  chargeType?: 'payment' | 'setup_verification';
  connectorId?: string | null;
  daysAgo: number;
  /** [connector id, provider slug, attempt status] in order. */
  attempts?: Array<[string, string, 'success' | 'failed' | 'error' | 'pending']>;
}

async function seedTransaction(tenant: Tenant, tx: SeedTransaction): Promise<void> {
  const id = `tx_${randomUUID().replace(/-/g, '').slice(0, 24)}`;
  const at = noonOf(tx.daysAgo);
  const captured = tx.captured ?? 0;
  const authorized = ['failed', 'pending'].includes(tx.status) ? 0 : tx.amount;
  await rows(
    `insert into transactions (id, organization_id, merchant_id, amount, amount_authorized, amount_captured,
       amount_refunded, currency, payment_method, charge_type, country, status, capture, connector_id, workflow_id,
       created_at, updated_at, livemode)
     values (?, ?, ?, ?, ?, ?, ?, ?, 'credit_card', ?, 'BR', ?, true, ?, ?, ?, ?, false)`,
    [
      id,
      tenant.organization_id,
      tenant.merchant_id,
      tx.amount,
      authorized,
      captured,
      tx.refunded ?? 0,
      tx.currency ?? 'BRL',
      tx.chargeType ?? 'payment',
      tx.status,
      tx.connectorId ?? null,
      `transaction-${id}`,
      at,
      at,
    ],
  );
  for (const [index, [connectorId, slug, status]] of (tx.attempts ?? []).entries()) {
    await rows(
      `insert into transaction_attempts (id, transaction_id, attempt_number, is_fallback, connector_id, provider_slug,
         status, started_at, finished_at) values (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [randomUUID(), id, index + 1, index > 0, connectorId, slug, status, at, status === 'pending' ? null : at],
    );
  }
}

/** A subscription row beside the real one (same customer, card and offer; its own plan) and its transitions. */
async function seedSubscription(
  anchor: Subscribed,
  sub: {
    status: string;
    amount: number;
    cycle: string;
    customDays?: number;
    /** [type, from status, to status, days ago] oldest first. */
    transitions: Array<[string, string | null, string, number]>;
    /** A customer on a test clock, whose transitions are dated in days before the clock's day (`today`). */
    onClock?: { customerId: string; today: number };
  },
): Promise<void> {
  const id = `sub_${randomUUID().replace(/-/g, '').slice(0, 24)}`;
  await rows(
    `insert into subscriptions (id, organization_id, merchant_id, customer_id, current_offer_id, product_id, plan_key,
       billing_cycle, custom_billing_days, currency, current_amount, current_period_start, current_period_end,
       billing_anchor_at, status, payment_instrument_id, country, origin_transaction_id, livemode)
     select ?, organization_id, merchant_id, coalesce(?, customer_id), current_offer_id, product_id, ?, ?, ?, 'USD', ?,
       current_period_start, current_period_end, billing_anchor_at, ?, payment_instrument_id, country, ?, livemode
     from subscriptions where id = ?`,
    [
      id,
      sub.onClock?.customerId ?? null,
      `plan-${id}`,
      sub.cycle,
      sub.customDays ?? null,
      sub.amount,
      sub.status,
      `origin-${id}`,
      anchor.state.subscriptionId,
    ],
  );
  for (const [index, [type, from, to, daysAgo]] of sub.transitions.entries()) {
    await rows(
      `insert into subscription_transitions (id, subscription_id, merchant_id, transition_type, from_status, to_status,
         triggered_by, transition_key, created_at) values (?, ?, ?, ?, ?, ?, 'system', ?, ?)`,
      [
        `str_${randomUUID().replace(/-/g, '').slice(0, 24)}`,
        id,
        anchor.tenant.merchant_id,
        type,
        from,
        to,
        `${id}-${index}`,
        sub.onClock ? new Date(sub.onClock.today - daysAgo * DAY + 12 * 3_600_000) : noonOf(daysAgo),
      ],
    );
  }
}

async function sessionOf(tenant: Tenant, role: 'owner' | 'viewer' = 'owner') {
  const user = await createMerchantUser(tenant.organization_id, [tenant.merchant_id], { role });
  const { access_token: token } = await signIn('merchant', user);
  return bearer(token as string, { 'x-merchant-id': tenant.merchant_id });
}

describe('Merchant Dashboard overview: the last 30 days from the read models', function () {
  this.timeout(120_000);
  let mine: Subscribed;
  let theirs: Subscribed;
  let overview: any;
  let c1: string;
  let c2: string;

  before(async () => {
    // The real subscription: a USD 9.99 monthly plan, paid today through connector 1 (provider_a #1).
    mine = await subscribed(new Date());
    c1 = mine.connector.id;
    c2 = (await postConnector(mine.tenant, 'provider_b', { name: 'Second acquirer' })).id;
    const tenant = mine.tenant;

    await seedTransaction(tenant, {
      status: 'authorized',
      amount: 10_000,
      captured: 10_000,
      connectorId: c1,
      daysAgo: 0,
      attempts: [[c1, 'provider_a', 'success']],
    });
    await seedTransaction(tenant, {
      status: 'pre_authorized',
      amount: 3_000,
      connectorId: c1,
      daysAgo: 0,
      attempts: [[c1, 'provider_a', 'success']],
    });
    await seedTransaction(tenant, {
      status: 'failed',
      amount: 4_000,
      daysAgo: 1,
      attempts: [
        [c1, 'provider_a', 'failed'],
        [c2, 'provider_b', 'failed'],
      ],
    });
    await seedTransaction(tenant, {
      status: 'authorized',
      amount: 5_000,
      captured: 5_000,
      connectorId: c2,
      daysAgo: 1,
      attempts: [
        [c1, 'provider_a', 'failed'],
        [c2, 'provider_b', 'success'],
      ],
    });
    await seedTransaction(tenant, {
      status: 'failed',
      amount: 1_000,
      daysAgo: 2,
      attempts: [[c1, 'provider_a', 'error']],
    });
    await seedTransaction(tenant, {
      status: 'refunded',
      currency: 'USD',
      amount: 2_000,
      captured: 2_000,
      refunded: 2_000,
      connectorId: c2,
      daysAgo: 5,
      attempts: [[c2, 'provider_b', 'success']],
    });
    // Not decided yet, a card check, and one from before the window: none counts as a payment (the card check's
    // attempt counts for its connector, which answered it).
    await seedTransaction(tenant, {
      status: 'pending',
      amount: 6_000,
      connectorId: c2,
      daysAgo: 0,
      attempts: [[c2, 'provider_b', 'pending']],
    });
    await seedTransaction(tenant, {
      status: 'authorized',
      amount: 0,
      chargeType: 'setup_verification',
      connectorId: c1,
      daysAgo: 0,
      attempts: [[c1, 'provider_a', 'success']],
    });
    await seedTransaction(tenant, {
      status: 'authorized',
      amount: 7_000,
      captured: 7_000,
      connectorId: c1,
      daysAgo: 30,
      attempts: [[c1, 'provider_a', 'success']],
    });

    // Yearly 120.00 → 10.00 a month, active since 10 days ago.
    await seedSubscription(mine, {
      status: 'active',
      amount: 12_000,
      cycle: 'yearly',
      transitions: [['creation', null, 'active', 10]],
    });
    // Quarterly 30.00 → 10.00 a month, in dunning since 3 days ago.
    await seedSubscription(mine, {
      status: 'dunning',
      amount: 3_000,
      cycle: 'quarterly',
      transitions: [
        ['creation', null, 'active', 12],
        ['dunning_entry', 'active', 'dunning', 3],
      ],
    });
    // Monthly 25.00: into dunning 6 days ago, recovered (a paid retry) 2 days ago.
    await seedSubscription(mine, {
      status: 'active',
      amount: 2_500,
      cycle: 'monthly',
      transitions: [
        ['creation', null, 'active', 20],
        ['dunning_entry', 'active', 'dunning', 6],
        ['dunning_retry', 'dunning', 'dunning', 4],
        ['dunning_retry', 'dunning', 'active', 2],
      ],
    });
    // Monthly 40.00, cancelled 5 days ago.
    await seedSubscription(mine, {
      status: 'cancelled',
      amount: 4_000,
      cycle: 'monthly',
      transitions: [
        ['creation', null, 'active', 15],
        ['cancellation', 'active', 'cancelled', 5],
      ],
    });
    // Every 10 days 10.00 → 10.00 × 365 / 12 / 10 = 30.4166… a month, active since 8 days ago.
    await seedSubscription(mine, {
      status: 'active',
      amount: 1_000,
      cycle: 'custom',
      customDays: 10,
      transitions: [['creation', null, 'active', 8]],
    });

    // Another merchant: a real subscription and charge of its own, plus a decline and a subscription in dunning.
    theirs = await subscribed(new Date());
    await seedTransaction(theirs.tenant, {
      status: 'failed',
      amount: 9_000,
      daysAgo: 0,
      attempts: [[theirs.connector.id, 'provider_a', 'failed']],
    });
    await seedSubscription(theirs, {
      status: 'dunning',
      amount: 5_000,
      cycle: 'monthly',
      transitions: [
        ['creation', null, 'active', 9],
        ['dunning_entry', 'active', 'dunning', 1],
      ],
    });

    const res = await api.get('/merchant/overview', {
      headers: await sessionOf(mine.tenant, 'viewer'),
      query: { livemode: 'false' },
    });
    expect(res.status, res.text).to.equal(200);
    overview = res.body;
  });

  const dayAgo = (daysAgo: number) => overview.days[overview.days.length - 1 - daysAgo];

  it('covers the 30 UTC days that end today, one entry per day', () => {
    expect(overview.days).to.have.length(30);
    expect(overview.to).to.equal(new Date(startOfToday()).toISOString().slice(0, 10));
    expect(overview.from).to.equal(new Date(startOfToday() - 29 * DAY).toISOString().slice(0, 10));
    expect(overview.days.map((day: any) => day.date)).to.deep.equal(
      Array.from({ length: 30 }, (_, i) => new Date(startOfToday() - (29 - i) * DAY).toISOString().slice(0, 10)),
    );
  });

  it('sums the captured volume by currency and rates approved against declined payments', () => {
    // Approved: the real first charge (USD 9.99), 100.00 and 50.00 captured, a 30.00 hold, a refunded USD 20.00.
    expect(overview.payments).to.deep.equal({
      approved: 5,
      declined: 2,
      approval_rate: 0.7143,
      volume: [
        { currency: 'BRL', amount: 15_000 },
        { currency: 'USD', amount: 2_999 },
      ],
    });
  });

  it('gives each day its payments, approval rate and volume', () => {
    expect(dayAgo(0)).to.deep.include({
      approved: 3,
      declined: 0,
      approval_rate: 1,
      volume: [
        { currency: 'BRL', amount: 10_000 },
        { currency: 'USD', amount: 999 },
      ],
    });
    expect(dayAgo(1)).to.deep.include({
      approved: 1,
      declined: 1,
      approval_rate: 0.5,
      volume: [{ currency: 'BRL', amount: 5_000 }],
    });
    expect(dayAgo(2)).to.deep.include({ approved: 0, declined: 1, approval_rate: 0, volume: [] });
    expect(dayAgo(5)).to.deep.include({ approved: 1, declined: 0, volume: [{ currency: 'USD', amount: 2_000 }] });
    expect(dayAgo(3)).to.deep.include({ approved: 0, declined: 0, approval_rate: null, volume: [] });
  });

  it('rates each connector by its finished attempts, a cascade counting each try against its connector', () => {
    expect(overview.connectors).to.deep.equal([
      {
        connector_id: c1,
        name: 'provider_a #1',
        provider_slug: 'provider_a',
        attempts: 7,
        approved: 4,
        declined: 2,
        errors: 1,
        approval_rate: 0.5714,
        volume: [
          { currency: 'BRL', amount: 10_000 },
          { currency: 'USD', amount: 999 },
        ],
      },
      {
        connector_id: c2,
        name: 'Second acquirer',
        provider_slug: 'provider_b',
        attempts: 3,
        approved: 2,
        declined: 1,
        errors: 0,
        approval_rate: 0.6667,
        volume: [
          { currency: 'BRL', amount: 5_000 },
          { currency: 'USD', amount: 2_000 },
        ],
      },
    ]);
  });

  it('counts active subscriptions, MRR as monthly equivalents, dunning and recoveries', () => {
    // Active: the real 9.99 monthly, 10.00 (yearly), 25.00 (recovered), 30.4166… (every 10 days) → 75.41.
    expect(overview.subscriptions).to.deep.equal({
      active: 4,
      in_dunning: 1,
      mrr: [{ currency: 'USD', amount: 7_541 }],
      mrr_in_dunning: [{ currency: 'USD', amount: 1_000 }],
      entered_dunning: 2,
      recovered: 1,
    });
  });

  it('counts the subscriptions active at each day’s end from the transition log', () => {
    expect(dayAgo(0).active_subscriptions).to.equal(4);
    // Two days ago: yearly, recovered that day, every-10-days (quarterly in dunning, monthly cancelled).
    expect(dayAgo(2)).to.deep.include({ active_subscriptions: 3, recovered: 1, entered_dunning: 0 });
    // Three days ago: yearly and every-10-days (the quarterly entered dunning that day, the monthly was in it).
    expect(dayAgo(3)).to.deep.include({ active_subscriptions: 2, entered_dunning: 1 });
    // Six days ago: yearly, quarterly, the one to be cancelled, every-10-days (the recovered one was in dunning).
    expect(dayAgo(6)).to.deep.include({ active_subscriptions: 4, entered_dunning: 1, recovered: 0 });
    expect(dayAgo(25)).to.deep.include({ active_subscriptions: 0 });
    // Fourteen days ago: the one recovered later and the one cancelled later.
    expect(dayAgo(14).active_subscriptions).to.equal(2);
  });

  it("answers another merchant's session with that merchant's figures only", async () => {
    const res = await api.get('/merchant/overview', {
      headers: await sessionOf(theirs.tenant),
      query: { livemode: 'false' },
    });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.payments).to.deep.equal({
      approved: 1,
      declined: 1,
      approval_rate: 0.5,
      volume: [{ currency: 'USD', amount: 999 }],
    });
    expect(res.body.subscriptions).to.deep.equal({
      active: 1,
      in_dunning: 1,
      mrr: [{ currency: 'USD', amount: 999 }],
      mrr_in_dunning: [{ currency: 'USD', amount: 5_000 }],
      entered_dunning: 1,
      recovered: 0,
    });
    expect(res.body.connectors.map((c: any) => [c.connector_id, c.attempts])).to.deep.equal([[theirs.connector.id, 2]]);
  });

  it('refuses API keys and a merchant the person is not a member of', async () => {
    expectError(await api.get('/merchant/overview', { key: mine.tenant.merchant_secret_key }), 401);
    const headers = { ...(await sessionOf(mine.tenant)), 'x-merchant-id': theirs.tenant.merchant_id };
    expectError(await api.get('/merchant/overview', { headers }), 403);
  });
});

describe("Merchant Dashboard overview of test data: a test clock's subscriptions in the clock's 30 days", function () {
  this.timeout(120_000);

  it("counts a clock-bound subscription's dunning and recovery in the 30 days up to its clock's time, aligned on today", async () => {
    // The real subscription (active since today), and a customer on a clock 60 days ahead of real time.
    const anchor = await subscribed(new Date());
    const clockDay = startOfToday() + 60 * DAY;
    const clock = await createClock(anchor.tenant, new Date(clockDay + 10 * 3_600_000).toISOString());
    const customer = await api.post('/customers', {
      key: anchor.tenant.merchant_secret_key,
      body: customerInput({ test_clock_id: clock.id }),
    });
    expect(customer.status, customer.text).to.equal(201);
    const onClock = { customerId: customer.body.data.id, today: clockDay };
    // On the clock: active since 10 clock days ago, into dunning 3 clock days ago, recovered yesterday (clock time).
    await seedSubscription(anchor, {
      status: 'active',
      amount: 2_500,
      cycle: 'monthly',
      onClock,
      transitions: [
        ['creation', null, 'active', 10],
        ['dunning_entry', 'active', 'dunning', 3],
        ['dunning_retry', 'dunning', 'active', 1],
      ],
    });

    const res = await api.get('/merchant/overview', {
      headers: await sessionOf(anchor.tenant),
      query: { livemode: 'false' },
    });
    expect(res.status, res.text).to.equal(200);
    const dayAgo = (daysAgo: number) => res.body.days[res.body.days.length - 1 - daysAgo];
    expect(res.body.subscriptions).to.deep.include({ active: 2, entered_dunning: 1, recovered: 1 });
    expect(dayAgo(3)).to.deep.include({ entered_dunning: 1, active_subscriptions: 0 });
    expect(dayAgo(1)).to.deep.include({ recovered: 1, active_subscriptions: 1 });
    expect(dayAgo(0).active_subscriptions).to.equal(2);
  });
});
