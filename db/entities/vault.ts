import { EntitySchema } from '@mikro-orm/core';
import { createdAt, updatedAt } from './timestamps';

/** A browser's short-lived session with the card SDK, created with a public key (X-Public-Key). */
export interface BrowserSession {
  id: string;
  organizationId: string;
  merchantId: string;
  apiKeyId: string;
  checkoutSessionId: string | null;
  sdkVersion: string | null;
  metadata: Record<string, unknown> | null;
  expiresAt: Date;
  createdAt: Date;
  updatedAt: Date;
}

export const BrowserSessionSchema = new EntitySchema<BrowserSession>({
  name: 'BrowserSession',
  tableName: 'browser_sessions',
  properties: {
    id: { type: 'string', primary: true },
    organizationId: { type: 'string' },
    merchantId: { type: 'string' },
    apiKeyId: { type: 'string' },
    checkoutSessionId: { type: 'string', nullable: true },
    sdkVersion: { type: 'string', nullable: true },
    metadata: { type: 'json', nullable: true },
    expiresAt: { type: 'Date', columnType: 'timestamptz(3)' },
    createdAt,
    updatedAt,
  },
});

export const TOKEN_PURPOSES = ['one_time', 'instrument_enrollment'] as const;
export type TokenPurpose = (typeof TOKEN_PURPOSES)[number];
export const TOKEN_STATUSES = ['active', 'used', 'expired'] as const;
export type TokenStatus = (typeof TOKEN_STATUSES)[number];

/** A single-use card token (tok_). Only the non-sensitive parts are readable; the PAN is sealed until used. */
export interface CardToken {
  id: string;
  organizationId: string;
  merchantId: string;
  browserSessionId: string;
  checkoutSessionId: string | null;
  purpose: TokenPurpose;
  /** Stored state; an active token past expiresAt IS expired (effectiveTokenStatus). */
  status: TokenStatus;
  cardBrand: string;
  last4: string;
  bin: string;
  expMonth: number;
  expYear: number;
  /** Envelope-encrypted; null once used or expired. */
  panEncrypted: string | null;
  holderNameEncrypted: string | null;
  fingerprint: string;
  additionalMetadata: Record<string, unknown> | null;
  expiresAt: Date;
  usedAt: Date | null;
  usedBy: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export const CardTokenSchema = new EntitySchema<CardToken>({
  name: 'CardToken',
  tableName: 'card_tokens',
  properties: {
    id: { type: 'string', primary: true },
    organizationId: { type: 'string' },
    merchantId: { type: 'string' },
    browserSessionId: { type: 'string' },
    checkoutSessionId: { type: 'string', nullable: true },
    purpose: { type: 'string' },
    status: { type: 'string', default: 'active' },
    cardBrand: { type: 'string' },
    last4: { type: 'string' },
    bin: { type: 'string' },
    expMonth: { type: 'integer' },
    expYear: { type: 'integer' },
    panEncrypted: { type: 'text', nullable: true, hidden: true },
    holderNameEncrypted: { type: 'text', nullable: true, hidden: true },
    fingerprint: { type: 'string', hidden: true },
    additionalMetadata: { type: 'json', nullable: true },
    expiresAt: { type: 'Date', columnType: 'timestamptz(3)' },
    usedAt: { type: 'Date', columnType: 'timestamptz(3)', nullable: true },
    usedBy: { type: 'string', nullable: true },
    createdAt,
    updatedAt,
  },
});

/** The encrypted CVC of an active token (unlogged table; deleted when the token is used, swept when it expires). */
export interface CardTokenCvc {
  cardTokenId: string;
  cvcEncrypted: string;
  expiresAt: Date;
}

export const CardTokenCvcSchema = new EntitySchema<CardTokenCvc>({
  name: 'CardTokenCvc',
  tableName: 'card_token_cvcs',
  properties: {
    cardTokenId: { type: 'string', primary: true },
    cvcEncrypted: { type: 'text', hidden: true },
    expiresAt: { type: 'Date', columnType: 'timestamptz(3)' },
  },
});

export const INSTRUMENT_STATUSES = ['active', 'expired', 'revoked'] as const;
export type InstrumentStatus = (typeof INSTRUMENT_STATUSES)[number];
export const CARD_TYPES = ['credit', 'debit'] as const;
export type CardType = (typeof CARD_TYPES)[number];

/** A saved card (pi_). The card number is never readable through the API. */
export interface PaymentInstrument {
  id: string;
  organizationId: string;
  merchantId: string;
  customerId: string;
  instrumentType: 'card';
  cardBrand: string | null;
  cardType: CardType | null;
  last4: string | null;
  bin: string | null;
  issuerCountry: string | null;
  expMonth: number | null;
  expYear: number | null;
  /** First instant after the expiry month (UTC); an active instrument reads as expired from then. */
  cardExpiresAt: Date | null;
  status: InstrumentStatus;
  panEncrypted: string;
  holderNameEncrypted: string | null;
  fingerprint: string;
  networkTransactionId: string | null;
  verifiedConnectorId: string | null;
  metadata: Record<string, unknown> | null;
  createdAt: Date;
  updatedAt: Date;
  revokedAt: Date | null;
}

export const PaymentInstrumentSchema = new EntitySchema<PaymentInstrument>({
  name: 'PaymentInstrument',
  tableName: 'payment_instruments',
  properties: {
    id: { type: 'string', primary: true },
    organizationId: { type: 'string' },
    merchantId: { type: 'string' },
    customerId: { type: 'string' },
    instrumentType: { type: 'string', default: 'card' },
    cardBrand: { type: 'string', nullable: true },
    cardType: { type: 'string', nullable: true },
    last4: { type: 'string', nullable: true },
    bin: { type: 'string', nullable: true },
    issuerCountry: { type: 'string', nullable: true },
    expMonth: { type: 'integer', nullable: true },
    expYear: { type: 'integer', nullable: true },
    cardExpiresAt: { type: 'Date', columnType: 'timestamptz(3)', nullable: true },
    status: { type: 'string', default: 'active' },
    panEncrypted: { type: 'text', hidden: true },
    holderNameEncrypted: { type: 'text', nullable: true, hidden: true },
    fingerprint: { type: 'string', hidden: true },
    networkTransactionId: { type: 'string', nullable: true },
    verifiedConnectorId: { type: 'string', nullable: true },
    metadata: { type: 'json', nullable: true },
    createdAt,
    updatedAt,
    revokedAt: { type: 'Date', columnType: 'timestamptz(3)', nullable: true },
  },
});
