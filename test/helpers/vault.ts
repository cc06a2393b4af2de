/** Browser-session, card-token and instrument fixtures: what the SDK does, done from Node with the same format. */
import { expect } from 'chai';
import { encryptCompactJwe, type EcPublicJwk } from '../../domain/platform/jwe';
import { api, type ApiResponse } from './http';
import { customerInput, type Tenant } from './factories';
import { postConnector } from './connectors';

/** Sandbox test cards (sandbox/cards.ts). */
export const CARDS = {
  visa: { number: '4242424242424242', cvc: '123', brand: 'visa' },
  mastercard: { number: '5555555555554444', cvc: '321', brand: 'mastercard' },
  amex: { number: '378282246310005', cvc: '4321', brand: 'amex' },
  elo: { number: '6362970000457013', cvc: '456', brand: 'elo' },
  stolen: { number: '4000000000009979', cvc: '123', brand: 'visa' },
  doNotHonor: { number: '4000000000000002', cvc: '123', brand: 'visa' },
  /** Saves (its zero-amount verification approves), then every charge of it declines. */
  declinesCharges: { number: '4000000000000341', cvc: '123', brand: 'visa' },
} as const;

export interface CardInput {
  number: string;
  cvc: string;
  expMonth?: number | string;
  expYear?: number | string;
  name?: string;
}

export interface SessionData {
  sessionId: string;
  expiresAt: string;
  encryption: { kid: string; jwk: EcPublicJwk };
  settings: { allowedCardBrands: string[] };
  [field: string]: any;
}

export const NEXT_YEAR = new Date().getUTCFullYear() + 2;

export const publicHeaders = (key: string, sessionId?: string): Record<string, string> => ({
  'x-public-key': key,
  ...(sessionId ? { 'x-session-id': sessionId } : {}),
});

/** A card connector (provider_a: visa, mastercard, amex, discover, diners, jcb; USD, BRL …) through the connectors API. */
export async function cardConnector(
  tenant: Tenant,
  slug = 'provider_a',
  overrides: Record<string, unknown> = {},
): Promise<any> {
  return postConnector(tenant, slug, overrides);
}

export async function openSession(
  tenant: Tenant,
  body: Record<string, unknown> = {},
  key = tenant.merchant_public_key,
): Promise<SessionData> {
  const res = await api.post('/sessions', { headers: publicHeaders(key), body });
  expect(res.status, res.text).to.equal(201);
  return res.body;
}

/** The SDK's encryption: one compact JWE per field, bound to the session (sid) and the field name (fld). */
export function encryptCard(
  session: Pick<SessionData, 'sessionId' | 'encryption'>,
  card: CardInput,
): Record<string, string> {
  const seal = (fld: string, value: string) =>
    encryptCompactJwe(session.encryption.jwk, value, { sid: session.sessionId, fld });
  return {
    number: seal('number', card.number),
    cvc: seal('cvc', card.cvc),
    expiryMonth: seal('expiryMonth', String(card.expMonth ?? 12)),
    expiryYear: seal('expiryYear', String(card.expYear ?? NEXT_YEAR)),
    ...(card.name !== undefined ? { name: seal('name', card.name) } : {}),
  };
}

export function metadataOf(card: CardInput & { brand?: string }): Record<string, unknown> {
  return {
    brand: card.brand ?? 'visa',
    last4: card.number.slice(-4),
    expiryMonth: String(card.expMonth ?? 12),
    expiryYear: String(card.expYear ?? NEXT_YEAR),
    bin: card.number.slice(0, card.number.length >= 16 ? 8 : 6),
  };
}

export function tokenBody(
  session: SessionData,
  card: CardInput & { brand?: string },
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return { encryptedCard: encryptCard(session, card), metadata: metadataOf(card), ...extra };
}

export function postToken(
  tenant: Tenant,
  session: SessionData,
  body: Record<string, unknown>,
  key = tenant.merchant_public_key,
): Promise<ApiResponse> {
  return api.post('/tokens', { headers: publicHeaders(key, session.sessionId), body });
}

export async function mintToken(
  tenant: Tenant,
  session: SessionData,
  card: CardInput & { brand?: string } = CARDS.visa,
  extra: Record<string, unknown> = { purpose: 'instrument_enrollment' },
): Promise<any> {
  const res = await postToken(tenant, session, tokenBody(session, card, extra));
  expect(res.status, res.text).to.equal(201);
  return res.body;
}

export async function createCustomer(tenant: Tenant, key = tenant.merchant_secret_key): Promise<string> {
  const res = await api.post('/customers', { key, body: customerInput() });
  expect(res.status, res.text).to.equal(201);
  return res.body.data.id;
}

/**
 * What the merchant's server hands the browser so it can enrol a card for this customer in a session without a
 * checkout (POST /merchants/:merchant_id/enrolment-tokens): single use, short-lived.
 */
export async function enrolmentToken(tenant: Tenant, customerId: string, extra: Record<string, unknown> = {}) {
  const res = await api.post(`/merchants/${tenant.merchant_id}/enrolment-tokens`, {
    key: tenant.merchant_secret_key,
    body: { customer_id: customerId, ...extra },
  });
  expect(res.status, res.text).to.equal(201);
  return res.body.enrolment_token as string;
}

/** An enrolment body outside a checkout: a fresh enrolment token for its customerId added. */
export async function withEnrolmentToken(
  tenant: Tenant,
  body: Record<string, unknown> & { customerId: string },
): Promise<Record<string, unknown>> {
  return { ...body, enrolmentToken: await enrolmentToken(tenant, body.customerId) };
}

export const instrumentsPath = (merchantId: string) => `/merchants/${merchantId}/payment-instruments`;

/** Saves a card server-side (no provider call): connector + session + enrolment token + POST. */
export async function saveCard(
  tenant: Tenant,
  customerId: string,
  card: CardInput & { brand?: string } = CARDS.visa,
): Promise<any> {
  const session = await openSession(tenant);
  const token = await mintToken(tenant, session, card);
  const res = await api.post(instrumentsPath(tenant.merchant_id), {
    key: tenant.merchant_secret_key,
    body: { customer_id: customerId, card_ciphertext_id: token.tokenId },
  });
  expect(res.status, res.text).to.equal(200);
  return res.body;
}
