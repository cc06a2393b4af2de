/**
 * Merchant Dashboard: the merchant's test clocks (the Overview names them with their time), the test clock of a
 * subscription (shown on its page), advancing it from there (by a day, to the next renewal, to a date: the page
 * computes the time; the rules are POST /test-clocks/:id/advance's) and making the subscription's next renewal fail (the rules of POST /test-clocks/:id/subscriptions/:sub/fail-next-renewal).
 */
import type { DashboardRequirement } from '../../http/dashboard-auth';
import { defineRoute } from '../../http/define-route';
import { Type } from '@sinclair/typebox';
import { pagination } from '../../http/pagination';
import { Id, Nullable, PaginationQuery, StrictObject } from '../../http/schema';
import {
  AdvanceTestClockBody,
  ClockSubscriptionParams,
  FailNextRenewalBody,
  RenewalFailureSchema,
  TestClockParams,
  TestClockSchema,
} from './test-clocks.schema';
import { failNextRenewal } from './renewal-failures.service';
import { presentTestClock } from './test-clocks.presenter';
import { advanceTestClock, listTestClocks, testClockOfSubscription } from './test-clocks.service';

const tags = ['Merchant Dashboard: test clocks'];
const auth: DashboardRequirement = { dashboard: ['merchant'], tenant: 'merchant' };

export const dashboardTestClockRoutes = [
  defineRoute({
    method: 'get',
    path: '/merchant/test-clocks',
    summary: "Merchant Dashboard: the merchant's test clocks, newest first (the Overview names them with their time)",
    tags,
    auth,
    query: StrictObject(PaginationQuery),
    responses: { 200: Type.Array(TestClockSchema) },
    envelope: 'bare',
    pagination: 'flat',
    async handler({ em, merchantId, query }) {
      const { items, total } = await listTestClocks(em, merchantId, query);
      return { status: 200, data: items.map(presentTestClock), pagination: pagination(query, total) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/merchant/subscriptions/:id/test-clock',
    summary: "Merchant Dashboard: the test clock the subscription's customer is on (test_clock null: real time)",
    tags,
    auth,
    params: StrictObject({ id: Id('sub') }),
    responses: { 200: StrictObject({ test_clock: Nullable(TestClockSchema) }) },
    envelope: 'bare',
    async handler({ em, merchantId, params }) {
      const clock = await testClockOfSubscription(em, merchantId, params.id);
      return { status: 200, data: { test_clock: clock ? presentTestClock(clock) : null } };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/merchant/test-clocks/:test_clock_id/advance',
    summary: 'Merchant Dashboard: move a test clock forward (same rules as POST /test-clocks/:id/advance)',
    tags,
    auth,
    params: TestClockParams,
    body: StrictObject({ frozen_time: AdvanceTestClockBody.properties.frozen_time }),
    responses: { 200: TestClockSchema },
    envelope: 'bare',
    errors: [422],
    // As POST /test-clocks/:id/advance: the row is committed before the workflow starts.
    waitsOnWorkflow: true,
    async handler({ em, merchantId, params, body, deps, session }) {
      const actor = { type: 'dashboard_user' as const, id: session.userId };
      const clock = await advanceTestClock(em, deps, merchantId, params.test_clock_id, body.frozen_time, actor);
      return { status: 200, data: presentTestClock(clock) };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/merchant/test-clocks/:test_clock_id/subscriptions/:subscription_id/fail-next-renewal',
    summary:
      'Merchant Dashboard: make the next renewal decline once (same rules as POST /test-clocks/:id/subscriptions/:sub/fail-next-renewal)',
    tags,
    auth,
    params: ClockSubscriptionParams,
    body: StrictObject({ failure_code: FailNextRenewalBody.properties.failure_code }),
    responses: { 200: RenewalFailureSchema },
    envelope: 'bare',
    errors: [409],
    async handler({ em, merchantId, params, body, session }) {
      const failureCode = body.failure_code ?? 'insufficient_funds';
      const actor = { type: 'dashboard_user' as const, id: session.userId };
      return {
        status: 200,
        data: await failNextRenewal(em, merchantId, params.test_clock_id, params.subscription_id, failureCode, actor),
      };
    },
  }),
];
