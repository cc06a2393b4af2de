/**
 * GET /merchant/overview: the charts the merchant Dashboard opens on (docs/api-decisions.md, "Merchant Dashboard
 * overview"). Every member reads it; it is computed from the read models on each request
 * (merchant-dashboard-overview.service.ts).
 */
import { Type } from '@sinclair/typebox';
import { defineRoute } from '../../http/define-route';
import type { DashboardRequirement } from '../../http/dashboard-auth';
import { Money, Nullable, StrictObject } from '../../http/schema';
import { OVERVIEW_DAYS } from '../../../db/repositories/merchant-overview.repository';
import { readMerchantSetup } from '../../../db/repositories/merchant-setup.repository';
import { merchantOverview } from './merchant-dashboard-overview.service';

// As merchantDashboard in merchant-dashboard.routes.ts (which lists this route; importing it back would be a cycle).
const auth: DashboardRequirement = { dashboard: ['merchant'], tenant: 'merchant' };

const Day = Type.String({ pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$', description: 'A UTC calendar day, YYYY-MM-DD' });
const Count = Type.Integer({ minimum: 0 });
const Rate = Nullable(
  Type.Number({ minimum: 0, maximum: 1, description: 'A share between 0 and 1, 4 places; null when nothing counted' }),
);
const Amounts = Type.Array(
  StrictObject({ currency: Type.String({ pattern: '^[A-Z]{3}$' }), amount: Money('The sum in this currency') }),
  { description: 'One entry per currency with a non-zero sum, by currency code' },
);

const OverviewSchema = StrictObject({
  livemode: Type.Boolean({ description: 'The mode shown: true for live data, false for test data' }),
  from: Day,
  to: Day,
  days: Type.Array(
    StrictObject({
      date: Day,
      approved: Count,
      declined: Count,
      approval_rate: Rate,
      volume: Amounts,
      active_subscriptions: Count,
      entered_dunning: Count,
      recovered: Count,
    }),
  ),
  payments: StrictObject({ approved: Count, declined: Count, approval_rate: Rate, volume: Amounts }),
  connectors: Type.Array(
    StrictObject({
      connector_id: Type.String(),
      name: Nullable(Type.String()),
      provider_slug: Type.String(),
      attempts: Count,
      approved: Count,
      declined: Count,
      errors: Count,
      approval_rate: Rate,
      volume: Amounts,
    }),
  ),
  subscriptions: StrictObject({
    active: Count,
    in_dunning: Count,
    mrr: Amounts,
    mrr_in_dunning: Amounts,
    entered_dunning: Count,
    recovered: Count,
  }),
  setup: StrictObject(
    {
      connector: Type.Boolean({ description: 'An active connector exists' }),
      routing: Type.Boolean({ description: 'An active routing profile exists (without one a charge answers 422)' }),
      webhook: Type.Boolean({ description: 'An active webhook endpoint exists' }),
    },
    {
      description:
        'The setup checklist: what the merchant configured, whatever the mode; the Overview shows it until all three hold',
    },
  ),
});

export const merchantDashboardOverviewRoute = defineRoute({
  method: 'get',
  path: '/merchant/overview',
  summary: 'The last 30 days of payments and subscriptions, by day and by connector (the Overview page)',
  description:
    `The ${OVERVIEW_DAYS} UTC days ending today, one entry per day even when empty: payments decided ` +
    '(approved or declined, charges only, by the day they were created), the amount captured, the approval rate; ' +
    'per connector, its finished attempts (a cascade counts each try against its connector) and what it captured; ' +
    'subscriptions active at each day’s end, entering dunning and recovered from it. The subscription totals are ' +
    'today’s: active, in dunning, and monthly recurring revenue (each cycle’s amount as a monthly equivalent). ' +
    'Live data only unless livemode=false asks for test data only: the two never mix.',
  tags: ['Merchant Dashboard: overview'],
  auth,
  query: StrictObject({
    livemode: Type.Boolean({
      default: true,
      description: 'true (the default): live data only; false: test data only (test-mode connectors, test clocks)',
    }),
  }),
  responses: { 200: OverviewSchema },
  envelope: 'bare',
  async handler({ em, merchantId, query }) {
    const overview = await merchantOverview(em, merchantId, query.livemode);
    return { status: 200, data: { ...overview, setup: await readMerchantSetup(em, merchantId) } };
  },
});
