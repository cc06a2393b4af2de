import type { EntityManager } from '@mikro-orm/postgresql';
import type { BrowserSession } from '../../../db/entities';
import type { Config } from '../../../domain/platform/config';
import { defineRoute } from '../../http/define-route';
import { sdkIntegrity } from '../sdk/sdk-assets.service';
import { browserCheckout } from './browser-checkout.service';
import {
  BrowserCheckoutSchema,
  BrowserSessionParams,
  BrowserSessionSchema,
  CheckoutPaymentSchema,
  ConfirmCheckoutBody,
  CreateBrowserSessionBody,
  EnrollBody,
  EnrollResultSchema,
} from './browser-sessions.schema';
import { presentBrowserCheckout, presentBrowserSession } from './browser-sessions.presenter';
import {
  createBrowserSession,
  refreshBrowserSession,
  sessionFromHeader,
  sessionMerchant,
} from './browser-sessions.service';
import { paymentSettings } from './payment-settings.service';
import { enrolInSession } from './session-enrolment.service';
import { confirmCheckout } from './checkout-payment.service';

const tags = ['Browser sessions and tokens'];
/** Public keys only (X-Public-Key); the merchant comes from the key or the session, never from input. */
const publicAuth = { keys: ['merchant', 'organization'] as const, scopes: [], merchantScoped: false, publicKey: true };

async function sessionView(em: EntityManager, config: Config, session: BrowserSession) {
  // One after the other: the route's transaction is one connection.
  const merchant = await sessionMerchant(em, session);
  const settings = await paymentSettings(em, session.merchantId);
  return presentBrowserSession(session, merchant, settings, config.vault, sdkIntegrity());
}

export const browserSessionRoutes = [
  defineRoute({
    method: 'post',
    path: '/sessions',
    summary: 'Open a browser session for the card SDK (30 minutes, refreshable)',
    tags,
    auth: publicAuth,
    body: CreateBrowserSessionBody,
    responses: { 201: BrowserSessionSchema },
    // The named checkout ended more than an hour ago (CHECKOUT_SESSION_CLOSED).
    errors: [422],
    envelope: 'bare',
    links: [
      // The browser session's id is `sessionId`, not `id`.
      { to: 'post /sessions/:sessionId/refresh', from: { sessionId: 'sessionId' } },
      { to: 'post /sessions/:sessionId/payment-instruments', from: { sessionId: 'sessionId' } },
      { to: 'post /sessions/:sessionId/checkout/confirm', from: { sessionId: 'sessionId' } },
    ],
    async handler({ em, auth, body, deps }) {
      const session = await createBrowserSession(em, auth, body, new Date());
      return { status: 201, data: await sessionView(em, deps.config, session) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/sessions/checkout',
    summary: 'The checkout of the browser session named by X-Session-Id, its payment methods and saved cards',
    tags,
    auth: publicAuth,
    responses: { 200: BrowserCheckoutSchema },
    envelope: 'bare',
    // 422 business_rule_error: an expired browser session.
    errors: [422],
    async handler({ em, auth, header }) {
      const now = new Date();
      const session = await sessionFromHeader(em, auth, header('x-session-id'), now);
      return { status: 200, data: presentBrowserCheckout(await browserCheckout(em, session, now)) };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/sessions/:sessionId/refresh',
    summary: 'Extend a browser session by 30 minutes (at most 24 hours after it was opened)',
    tags,
    auth: publicAuth,
    params: BrowserSessionParams,
    responses: { 200: BrowserSessionSchema },
    envelope: 'bare',
    // 422 business_rule_error: an expired browser session.
    errors: [422],
    async handler({ em, auth, params, deps }) {
      const session = await refreshBrowserSession(em, auth, params.sessionId, new Date());
      return { status: 200, data: await sessionView(em, deps.config, session) };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/sessions/:sessionId/payment-instruments',
    summary:
      'Verify a card with a zero-amount check and save it for future merchant-initiated charges; in the browser ' +
      'session of a checkout in setup mode this completes the checkout (one card per checkout: 409 while another is verified)',
    tags,
    auth: publicAuth,
    params: BrowserSessionParams,
    body: EnrollBody,
    responses: { 201: EnrollResultSchema },
    envelope: 'bare',
    // 422 business_rule_error: an expired session or token, no connector able to verify the card.
    errors: [422],
    // Claims the token, verifies and saves in phases of their own (session-enrolment.service.ts).
    waitsOnWorkflow: true,
    async handler({ em, auth, params, body, deps, client }) {
      return {
        status: 201,
        data: await enrolInSession(em, deps, auth, params.sessionId, body, new Date(), client.ip),
      };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/sessions/:sessionId/checkout/confirm',
    summary:
      "Pay the browser session's checkout: amount, currency, items and customer from the checkout, the card from " +
      'its newest token; idempotent per checkout (a repeat joins the same payment); a decline is 200 outcome declined; ' +
      'a recurring offer starts its subscription as POST /transactions with checkout_session_id does',
    tags,
    auth: publicAuth,
    params: BrowserSessionParams,
    body: ConfirmCheckoutBody,
    responses: { 200: CheckoutPaymentSchema },
    envelope: 'bare',
    // 422 business_rule_error: an expired session or token, a checkout that cannot be paid.
    errors: [422],
    // The charge-cascade workflow writes everything; the handler holds no transaction while it waits.
    waitsOnWorkflow: true,
    async handler({ em, auth, params, body, deps, client }) {
      return {
        status: 200,
        data: await confirmCheckout(
          em,
          deps,
          auth,
          params.sessionId,
          body.paymentMethod ?? 'credit_card',
          new Date(),
          client.ip,
          { paymentInstrumentId: body.paymentInstrumentId, returnUrl: body.returnUrl },
        ),
      };
    },
  }),
];
