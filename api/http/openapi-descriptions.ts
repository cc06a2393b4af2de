/**
 * The prose of the OpenAPI document: each operation's description (the route's own words, then who may call it,
 * idempotency and paging, all derived from the declaration so they can't disagree with what the server enforces)
 * and one paragraph per tag.
 */
import { isDashboardAuth, type AnyRoute } from './define-route';

const sentence = (text: string) => {
  const trimmed = text.trim();
  return /[.!?)]$/.test(trimmed) ? trimmed : `${trimmed}.`;
};
const list = (items: readonly string[]) =>
  items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} or ${items[items.length - 1]}`;

function access(route: AnyRoute): string {
  const { auth } = route;
  if (auth === 'none') return '**Authentication:** none.';
  if (isDashboardAuth(auth)) {
    const tenant =
      auth.tenant === 'merchant'
        ? ' The x-merchant-id header names the merchant; the user must be an active member of it.'
        : auth.tenant === 'organization'
          ? ' The x-organization-id header names the organization the token was minted against.'
          : '';
    return `**Authentication:** a ${list(auth.dashboard)} Dashboard access token (Bearer), never an API key.${tenant}`;
  }
  if (auth.publicKey) return '**Authentication:** a public key (pk_…) in X-Public-Key; secret keys are refused here.';
  const keys = list(auth.keys.map((level) => `${level} key`));
  const scopes = auth.scopes.length > 0 ? ` with the scope ${list(auth.scopes)}` : '';
  const merchant =
    auth.merchantScoped !== false && auth.keys.includes('organization')
      ? ' An organization key names the merchant with merchant_id (path, query or body); a merchant key acts on its own merchant.'
      : '';
  return `**Authentication:** a secret ${keys} (Bearer)${scopes}.${merchant}`;
}

function idempotency(route: AnyRoute): string | null {
  if (!route.idempotency) return null;
  const need = route.idempotency === 'required' ? 'Required' : 'Recommended';
  return `**Idempotency:** ${need}: send an Idempotency-Key header (or idempotency_key in the body). A retry with the same key and body answers the first response with 200 instead of acting twice; the same key with another body is a 409.`;
}

function paging(route: AnyRoute): string | null {
  if (!route.pagination) return null;
  return '**Paging:** page (from 1, default 1) and limit (1–100, default 20); the pagination object gives total and total_pages.';
}

/** The operation's description: the route's own (or its summary), then how to call it. */
export function operationDescription(route: AnyRoute): string {
  return [sentence(route.description ?? route.summary), access(route), idempotency(route), paging(route)]
    .filter((part): part is string => part !== null)
    .join('\n\n');
}

/** One paragraph per tag (the test checks every tag a route uses has one). */
export const TAG_DESCRIPTIONS: Record<string, string> = {
  Health:
    'Liveness and readiness of the API and its dependencies (database, Temporal), for orchestrators and monitors.',
  'Dashboard sign-in':
    'Sign-in, token refresh, sign-out and password management of the merchant and organization Dashboards. Access tokens are short-lived JWTs; refresh tokens rotate on use.',
  Invitations: 'Accept or decline an invitation to a merchant team, from the link in the invitation e-mail.',
  Customers:
    'The people who pay. A customer is unique per merchant by e-mail; creating one with a known e-mail answers the existing customer. Document numbers are stored encrypted and only their last digits are shown.',
  'Product families':
    'Groups of products a subscription may move between (upgrade, downgrade) with change-offer; each family sets its default change_charge_behavior.',
  Products:
    'What the merchant sells: one-time or recurring, standalone or ranked (tier_order) inside a product family.',
  Offers:
    'A way to buy a product: billing cycle, trial, cycle limit and its prices (one per currency). Checkout sessions and subscriptions point at offers.',
  'Offer prices':
    "An offer's prices, one per currency, with an optional different first charge. Amounts are in minor units.",
  'Offer transitions':
    'Per offer pair, how a change-offer charges: at the next renewal, prorated now, or replacing the current charge. Pairs without a rule use the family default.',
  'Checkout sessions':
    'A purchase in progress: the buyer, the items priced in one currency, and its state from open to completed. The hosted checkout page and the browser SDK pay a checkout; a recurring offer starts a subscription once paid.',
  Merchants: 'The merchants of an organization: their settings, status, activity log and webhook configurations.',
  'API keys':
    'Secret and public keys of merchants and organizations: create, list, rotate (with an overlap) and revoke.',
  Connectors:
    "A merchant's accounts at payment providers: credentials (write-only, encrypted), test mode, card brands, installments and the circuit breaker that stops routing to a failing provider.",
  'Merchant Dashboard: connectors': 'Connectors as the merchant Dashboard manages them, for owners and admins.',
  'Organization Dashboard: connectors': "Connectors of the organization's merchants, for the organization Dashboard.",
  'Organization Dashboard: settings':
    "The organization's own settings: whether test-mode connectors are allowed in production.",
  'Payment providers': 'The providers Switchyard can route to, and the credential fields each one needs.',
  'Routing profiles':
    'Which connector a charge goes to: per payment method, a tree of conditions (amount, currency, brand, country, installments, …) ending in connectors, with fallbacks. Simulate a charge to see the path it takes.',
  'Routing nodes': 'The condition and action nodes of a routing profile tree.',
  'Routing settings': 'Which declines move a charge on to the next connector of its route.',
  Transactions:
    'Charges and their money movements: create (card, saved card, pix, boleto, wallet), read with the timeline and provider attempts, capture or void a pre-authorization, refund. Amounts are in minor units.',
  'Browser sessions and tokens':
    'Browser-side endpoints for the card SDK and the hosted checkout: a session, card encryption to a token, and saving a card. Called with a public key.',
  'Payment instruments': "A customer's saved cards, usable for later merchant-initiated charges and subscriptions.",
  Webhooks:
    'Webhook endpoints and their deliveries: each event is signed (HMAC-SHA256), retried with backoff, and can be redelivered by hand.',
  Events: 'The event log: everything webhooks deliver, readable and filterable.',
  Orders: 'What a transaction bought (items, amounts) and its status history.',
  Subscriptions:
    'Recurring billing: list, read, and change a subscription (cancel, pause, resume, reactivate, change offer, change card). Each change runs in the subscription workflow and is recorded as a transition with its actor.',
  'Merchant Dashboard: subscriptions': 'Subscriptions as the merchant Dashboard reads and changes them.',
  'Test clocks':
    'Simulated time for test mode: customers attached to a test clock see their subscriptions renew, retry and expire as the clock advances.',
  'Merchant Dashboard: test clocks': 'Test clocks as the merchant Dashboard shows and advances them.',
  'Merchant Dashboard: payments':
    'Transactions and orders as the merchant Dashboard reads them, with capture, void and refund.',
  'Merchant Dashboard: webhooks': 'Webhook endpoints and deliveries as the merchant Dashboard manages them.',
  'Merchant Dashboard: catalog and instruments':
    'Products, offers, prices and saved cards as the merchant Dashboard reads them; new products and offers, and payment links (checkout sessions).',
  'Merchant Dashboard: customers': 'Customers as the merchant Dashboard searches and shows them.',
  'Merchant Dashboard: team': "The merchant's team: members, roles and invitations.",
  'Merchant Dashboard: routing':
    'Routing profiles, their trees and simulation, and what the hosted checkout offers, as the merchant Dashboard edits them.',
  'Merchant Dashboard: overview': 'The last 30 days of payments and subscriptions the merchant Dashboard opens on.',
  'Merchant Dashboard: activity':
    "Who did what on the merchant: the activity record the Dashboard's Activity page shows.",
  Meta: 'This document.',
};
