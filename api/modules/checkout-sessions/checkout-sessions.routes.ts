import { Type } from '@sinclair/typebox';
import type { AppDeps } from '../../deps';
import { defineRoute } from '../../http/define-route';
import { pagination } from '../../http/pagination';
import { scheduleCheckoutExpiry } from '../../temporal/checkout';
import { checkoutEventRoutes } from './checkout-events.routes';
import { checkoutItemRoutes } from './checkout-items.routes';
import {
  CheckoutSessionSchema,
  CreateCheckoutSessionBody,
  GetCheckoutSessionQuery,
  IdentifyBody,
  ListCheckoutSessionsQuery,
  MerchantOnlyQuery,
  SessionParams,
  UpdateCheckoutSessionBody,
} from './checkout-sessions.schema';
import { presentSession } from './checkout-sessions.presenter';
import {
  abandonCheckoutSession,
  createCheckoutSession,
  getCheckoutSession,
  identifyCheckoutSession,
  listCheckoutSessions,
  updateCheckoutSession,
  viewOf,
  type CheckoutView,
} from './checkout-sessions.service';

const tags = ['Checkout sessions'];
const keys = ['merchant', 'organization'] as const;
const read = { keys, scopes: ['checkout:read'] } as const;
const write = { keys, scopes: ['checkout:write'] } as const;

const contextOf = (deps: AppDeps) => ({
  encryptionKey: deps.config.encryptionKey,
  appEnv: deps.config.env,
  now: new Date(),
});

/**
 * Starts the expiry workflow of a session that just got its expires_at. Runs inside the request transaction, after
 * the session row is flushed: a Temporal failure rolls the request back, so no committed session lacks its
 * workflow. A workflow whose session then rolls back finds no row and ends (the activity is idempotent), which is
 * harmless. A later push-out is not sent: the running workflow re-reads the row when its deadline comes and sleeps
 * on to the stored time, so that PATCH commits without Temporal and a failed one stores nothing.
 */
async function watchExpiry(deps: AppDeps, { session }: CheckoutView): Promise<void> {
  if (!session.expiresAt) return;
  await scheduleCheckoutExpiry(deps.temporal.client, {
    sessionId: session.id,
    merchantId: session.merchantId,
    expiresAt: session.expiresAt,
  });
}

export const checkoutSessionRoutes = [
  defineRoute({
    method: 'post',
    path: '/checkout-sessions',
    summary: 'Create a checkout session for a customer; items snapshot the offer prices',
    description:
      "Opens a purchase for the hosted checkout page or the browser SDK. Name the buyer with customer_id or with a customer object (found by e-mail or created), exactly one of them. Without items the checkout sells one unit of offer_id. The items' prices are copied from the offers now, in selected_currency (default: the offer's default price currency), so a later price change doesn't move this checkout. With expires_at the session expires then, unpaid. Paying it (the hosted page, or POST /transactions with checkout_session_id) completes it; a recurring offer then starts a subscription. With mode setup the session sells nothing and saves a card instead (the hosted 'save a card' page): customer_id or customer and selected_currency (the currency of the zero-amount check) are required, offer_id and items are refused; the buyer's card is verified and saved as the customer's payment instrument, and the completed session names it in payment_instrument_id. success_url (its {CHECKOUT_SESSION_ID} replaced by the session id) is where the hosted page sends the buyer once the checkout is paid or the card saved, cancel_url where its back link goes: https addresses (http on localhost outside production).",
    example: {
      offer_id: 'ofr_5tYh2KdQ8pLm',
      customer_id: 'cust_8Kq2mVxT3nR5',
      selected_currency: 'BRL',
      external_session_id: 'cart-981',
      success_url: 'https://shop.example/thanks?session={CHECKOUT_SESSION_ID}',
      cancel_url: 'https://shop.example/cart',
      items: [{ offer_id: 'ofr_5tYh2KdQ8pLm', quantity: 1, installments: 1 }],
    },
    tags,
    auth: write,
    body: CreateCheckoutSessionBody,
    responses: { 201: CheckoutSessionSchema, 200: CheckoutSessionSchema },
    envelope: 'wrapped',
    // 422 business_rule_error: the inline customer names a test clock that holds as many customers as it may.
    errors: [422],
    links: [
      { to: 'post /sessions', from: { 'body.checkoutSessionId': 'id' } },
      { to: 'post /transactions', from: { 'body.checkout_session_id': 'id' } },
    ],
    idempotency: 'optional',
    async handler({ em, merchantId, body, deps }) {
      const view = await createCheckoutSession(em, merchantId, body, contextOf(deps));
      await watchExpiry(deps, view);
      return { status: 201, data: presentSession(view) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/checkout-sessions',
    summary: 'List checkout sessions, newest first (items not included)',
    tags,
    auth: read,
    query: ListCheckoutSessionsQuery,
    responses: { 200: Type.Array(CheckoutSessionSchema) },
    envelope: 'wrapped',
    pagination: 'nested',
    async handler({ em, merchantId, query }) {
      const { items, total } = await listCheckoutSessions(em, merchantId, query, new Date());
      return { status: 200, data: items.map(presentSession), pagination: pagination(query, total) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/checkout-sessions/:id',
    summary: 'Get a checkout session (items by default, events on request)',
    tags,
    auth: read,
    params: SessionParams,
    query: GetCheckoutSessionQuery,
    responses: { 200: CheckoutSessionSchema },
    envelope: 'wrapped',
    async handler({ em, merchantId, params, query }) {
      const session = await getCheckoutSession(em, merchantId, params.id);
      const view = await viewOf(em, session, new Date(), { items: query.include_items, events: query.include_events });
      return { status: 200, data: presentSession(view) };
    },
  }),
  defineRoute({
    method: 'patch',
    path: '/checkout-sessions/:id',
    summary: 'Update the customer, currency, external reference or expiry of an open checkout session',
    tags,
    auth: write,
    params: SessionParams,
    query: MerchantOnlyQuery,
    body: UpdateCheckoutSessionBody,
    responses: { 200: CheckoutSessionSchema },
    envelope: 'wrapped',
    // 422 business_rule_error: the checkout session is no longer open.
    errors: [422],
    async handler({ em, merchantId, params, body, deps }) {
      const { view, firstExpiry } = await updateCheckoutSession(em, merchantId, params.id, body, contextOf(deps));
      if (firstExpiry) await watchExpiry(deps, view);
      return { status: 200, data: presentSession(view) };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/checkout-sessions/:id/identify',
    summary: 'Attach the buyer by customer_id, or by email (looked up or created)',
    tags,
    auth: write,
    params: SessionParams,
    query: MerchantOnlyQuery,
    body: IdentifyBody,
    responses: { 200: CheckoutSessionSchema },
    envelope: 'wrapped',
    // 422 business_rule_error: the checkout session is no longer open.
    errors: [422],
    async handler({ em, merchantId, params, body, deps }) {
      const view = await identifyCheckoutSession(em, merchantId, params.id, body, contextOf(deps));
      return { status: 200, data: presentSession(view) };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/checkout-sessions/:id/abandon',
    summary: 'Mark a checkout session abandoned (any state but completed)',
    tags,
    auth: write,
    params: SessionParams,
    query: MerchantOnlyQuery,
    responses: { 200: CheckoutSessionSchema },
    envelope: 'wrapped',
    // 422 business_rule_error: the checkout session is completed.
    errors: [422],
    async handler({ em, merchantId, params }) {
      return { status: 200, data: presentSession(await abandonCheckoutSession(em, merchantId, params.id, new Date())) };
    },
  }),
  ...checkoutItemRoutes,
  ...checkoutEventRoutes,
];
