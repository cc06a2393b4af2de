/** Checkout-session fixtures: sessions created through the API, and state only the clock or a payment can reach. */
import { expect } from 'chai';
import { api } from './http';
import { customerInput, type Tenant } from './factories';
import { createOffer, type OfferFixture } from './catalog';
import { stack } from './stack';

export interface SessionData {
  id: string;
  merchant_id: string;
  offer_id: string;
  customer_id: string | null;
  customer_email: string | null;
  customer_name: string | null;
  selected_currency: string | null;
  status: string;
  external_session_id: string | null;
  expires_at: string | null;
  completed_at: string | null;
  created_at: string;
  updated_at: string;
  items?: ItemData[];
  events?: EventData[];
}

export interface ItemData {
  id: string;
  checkout_session_id: string;
  offer_id: string;
  currency: string;
  amount: number;
  first_charge_amount: number | null;
  quantity: number;
  installments: number;
  created_at: string;
}

export interface EventData {
  id: string;
  event_type: string;
  ip_address: string | null;
  user_agent: string | null;
  metadata: Record<string, unknown> | null;
  [field: string]: unknown;
}

/** An offer priced BRL 4990 (default) and USD 999, unless `fixture.prices` says otherwise. */
export async function sellableOffer(tenant: Tenant, fixture: OfferFixture = {}) {
  return createOffer(tenant.merchant_id, fixture);
}

export async function createSession(
  tenant: Tenant,
  body: Record<string, unknown>,
  key = tenant.merchant_secret_key,
): Promise<SessionData> {
  const buyer = 'customer_id' in body || 'customer' in body ? {} : { customer: customerInput() };
  const res = await api.post('/checkout-sessions', { key, body: { ...buyer, ...body } });
  expect(res.status, res.text).to.equal(201);
  return res.body.data;
}

/** A session for a fresh offer, with an inline customer. */
export async function newSession(tenant: Tenant, body: Record<string, unknown> = {}) {
  const { offer, prices } = await sellableOffer(tenant);
  const session = await createSession(tenant, { offer_id: offer.id, ...body });
  return { offer, prices, session };
}

/** Rewrites stored columns directly: for states the public API cannot reach (initiated, past expiry, completed). */
export async function setStored(
  sessionId: string,
  columns: { status?: string; expires_at?: Date | null; customer_id?: null },
): Promise<void> {
  const sets = Object.keys(columns).map((column) => `${column} = ?`);
  const values = Object.values(columns).map((value) => (value === undefined ? null : value));
  if (columns.customer_id === null) sets.push('customer_email = null', 'customer_name = null');
  await stack()
    .orm.em.fork()
    .execute(`update checkout_sessions set ${sets.join(', ')} where id = ?`, [...values, sessionId]);
}

export async function storedStatus(sessionId: string): Promise<string> {
  const [row] = await stack().orm.em.fork().execute('select status from checkout_sessions where id = ?', [sessionId]);
  return row.status;
}

export const inFuture = (ms: number) => new Date(Date.now() + ms).toISOString();
export const HOUR = 60 * 60 * 1000;
