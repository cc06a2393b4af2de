/**
 * Test clocks: create a merchant's simulated time, attach customers to it (POST /customers
 * test_clock_id), and advance it; their subscriptions do every renewal, retry, trial end and cancellation due, each
 * at its own instant, through the real workflows. Test mode only: see docs/api-decisions.md "Test clocks".
 */
import { apiKeyCaller } from '../subscriptions/subscription-operations.service';
import { actorOf } from '../../../domain/merchants/merchants.activity';
import { Type } from '@sinclair/typebox';
import { defineRoute } from '../../http/define-route';
import { pagination } from '../../http/pagination';
import {
  AdvanceTestClockBody,
  ClockSubscriptionParams,
  CreateTestClockBody,
  FailNextRenewalBody,
  ListTestClocksQuery,
  MerchantQuery,
  RenewalFailureSchema,
  TestClockParams,
  TestClockSchema,
} from './test-clocks.schema';
import { failNextRenewal } from './renewal-failures.service';
import { presentTestClock } from './test-clocks.presenter';
import {
  advanceTestClock,
  createTestClock,
  deleteTestClock,
  getTestClock,
  listTestClocks,
} from './test-clocks.service';

const tags = ['Test clocks'];
const keys = ['merchant', 'organization'] as const;
const read = { keys, scopes: ['subscriptions:read'] } as const;
const write = { keys, scopes: ['subscriptions:write'] } as const;

export const testClockRoutes = [
  defineRoute({
    method: 'post',
    path: '/test-clocks',
    summary: 'Create a test clock at frozen_time (the customers attached to it run their subscriptions on it)',
    tags,
    auth: write,
    body: CreateTestClockBody,
    responses: { 201: TestClockSchema },
    envelope: 'wrapped',
    // 422 business_rule_error: the merchant has as many test clocks as it may.
    errors: [422],
    idempotency: 'optional',
    links: [{ to: 'post /customers', from: { 'body.test_clock_id': 'id' } }],
    async handler({ em, merchantId, body, auth }) {
      return { status: 201, data: presentTestClock(await createTestClock(em, merchantId, actorOf(auth), body)) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/test-clocks',
    summary: 'List test clocks, newest first',
    tags,
    auth: read,
    query: ListTestClocksQuery,
    responses: { 200: Type.Array(TestClockSchema) },
    envelope: 'wrapped',
    pagination: 'nested',
    async handler({ em, merchantId, query }) {
      const { items, total } = await listTestClocks(em, merchantId, query);
      return { status: 200, data: items.map(presentTestClock), pagination: pagination(query, total) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/test-clocks/:test_clock_id',
    summary: 'Get a test clock (status advancing until its subscriptions reached frozen_time)',
    tags,
    auth: read,
    params: TestClockParams,
    query: MerchantQuery,
    responses: { 200: TestClockSchema },
    envelope: 'wrapped',
    async handler({ em, merchantId, params }) {
      return { status: 200, data: presentTestClock(await getTestClock(em, merchantId, params.test_clock_id)) };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/test-clocks/:test_clock_id/advance',
    summary:
      'Move the clock forward: every subscription of its customers does the work due up to frozen_time, in order',
    tags,
    auth: write,
    params: TestClockParams,
    body: AdvanceTestClockBody,
    responses: { 200: TestClockSchema },
    envelope: 'wrapped',
    // 422 business_rule_error: not later than the clock's time, an advance of the merchant still running, or past
    // a bound of one advance (how far, the clock's horizon, renewals).
    errors: [422],
    // The clock row must be committed as advancing before the workflow starts (and put back if it cannot start).
    waitsOnWorkflow: true,
    async handler({ em, merchantId, params, body, deps, auth }) {
      const clock = await advanceTestClock(em, deps, merchantId, params.test_clock_id, body.frozen_time, actorOf(auth));
      return { status: 200, data: presentTestClock(clock) };
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/test-clocks/:test_clock_id',
    summary: "End the clock: its customers' subscriptions are cancelled, the customers kept",
    tags,
    auth: write,
    params: TestClockParams,
    query: MerchantQuery,
    responses: { 204: null },
    envelope: 'wrapped',
    waitsOnWorkflow: true,
    async handler({ em, merchantId, params, deps, auth }) {
      const caller = await apiKeyCaller(em, auth.keyId);
      await deleteTestClock(em, deps, merchantId, params.test_clock_id, caller, actorOf(auth));
      return { status: 204 };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/test-clocks/:test_clock_id/subscriptions/:subscription_id/fail-next-renewal',
    summary:
      "Make the subscription's next renewal decline once, with failure_code (insufficient_funds by default); the retry after it is charged as usual",
    tags,
    auth: write,
    params: ClockSubscriptionParams,
    body: FailNextRenewalBody,
    responses: { 200: RenewalFailureSchema },
    envelope: 'wrapped',
    // 409 conflict_error: the subscription's customer is not on this test clock.
    errors: [409],
    idempotency: 'optional',
    async handler({ em, merchantId, params, body, auth }) {
      const failureCode = body.failure_code ?? 'insufficient_funds';
      const { test_clock_id: clockId, subscription_id: subId } = params;
      const armed = await failNextRenewal(em, merchantId, clockId, subId, failureCode, actorOf(auth));
      return { status: 200, data: armed };
    },
  }),
];
