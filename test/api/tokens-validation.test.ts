/** POST /tokens with bad card data: every case is a clear 4xx naming the field, never a 500, never a value. */
import { expect } from 'chai';
import { encryptCompactJwe } from '../../domain/platform/jwe';
import { loadVaultKeys } from '../../domain/platform/vault-keys';
import { randomBytes } from 'node:crypto';
import { createTenant, type Tenant } from '../helpers/factories';
import { expectError, expectFieldErrors } from '../helpers/envelope';
import type { ApiResponse } from '../helpers/http';
import {
  CARDS,
  cardConnector,
  encryptCard,
  metadataOf,
  openSession,
  postToken,
  tokenBody,
  type SessionData,
} from '../helpers/vault';

function expectCardError(res: ApiResponse, code: string, fields: string[]): void {
  const details = expectFieldErrors(res, fields);
  expect(res.body.error.code).to.equal(code);
  expect(JSON.stringify(details) + res.body.error.message).to.not.match(/\d{6,}/);
}

describe('POST /api/v1/tokens — bad card data', () => {
  let tenant: Tenant;
  let session: SessionData;
  before(async () => {
    tenant = await createTenant();
    await cardConnector(tenant, 'provider_a');
    session = await openSession(tenant);
  });

  it('refuses a tampered ciphertext with 400 CARD_DECRYPTION_FAILED naming the field', async () => {
    const body = tokenBody(session, CARDS.visa) as any;
    const parts = body.encryptedCard.number.split('.');
    const bytes = Buffer.from(parts[3], 'base64url');
    bytes[0] ^= 0xff;
    parts[3] = bytes.toString('base64url');
    body.encryptedCard.number = parts.join('.');
    expectCardError(await postToken(tenant, session, body), 'CARD_DECRYPTION_FAILED', ['encryptedCard.number']);
  });

  it('refuses garbage in place of a JWE with 400 CARD_DECRYPTION_FAILED', async () => {
    const body = tokenBody(session, CARDS.visa) as any;
    body.encryptedCard.cvc = 'not.a.jwe';
    expectCardError(await postToken(tenant, session, body), 'CARD_DECRYPTION_FAILED', ['encryptedCard.cvc']);
  });

  it('refuses data encrypted to another key with 400 CARD_ENCRYPTION_KEY_MISMATCH', async () => {
    const other = loadVaultKeys({}, randomBytes(32));
    const body = {
      encryptedCard: encryptCard(
        { sessionId: session.sessionId, encryption: { kid: other.kid, jwk: other.publicJwk } },
        CARDS.visa,
      ),
      metadata: metadataOf(CARDS.visa),
    };
    expectCardError(await postToken(tenant, session, body), 'CARD_ENCRYPTION_KEY_MISMATCH', ['encryptedCard.number']);
  });

  it('refuses ciphertext made for another browser session (replay) with 400 CARD_ENCRYPTION_KEY_MISMATCH', async () => {
    const other = await openSession(tenant);
    const body = tokenBody(other, CARDS.visa);
    expectCardError(await postToken(tenant, session, body), 'CARD_ENCRYPTION_KEY_MISMATCH', ['encryptedCard.number']);
  });

  it('refuses fields swapped between slots (each ciphertext names its field) with 400', async () => {
    const body = tokenBody(session, CARDS.visa) as any;
    body.encryptedCard.cvc = encryptCompactJwe(session.encryption.jwk, '123', {
      sid: session.sessionId,
      fld: 'number',
    });
    expectCardError(await postToken(tenant, session, body), 'CARD_DECRYPTION_FAILED', ['encryptedCard.cvc']);
  });

  it('refuses a number failing Luhn with 400 INVALID_CARD_NUMBER', async () => {
    const card = { number: '4242424242424241', cvc: '123' };
    expectCardError(await postToken(tenant, session, tokenBody(session, card)), 'INVALID_CARD_NUMBER', [
      'encryptedCard.number',
    ]);
  });

  it('refuses an unknown brand with 400 UNSUPPORTED_CARD_BRAND', async () => {
    const card = { number: '9999999999999995', cvc: '123' };
    expectCardError(await postToken(tenant, session, tokenBody(session, card)), 'UNSUPPORTED_CARD_BRAND', [
      'encryptedCard.number',
    ]);
  });

  it('refuses an expired card with 400 CARD_EXPIRED', async () => {
    const lastMonth = new Date();
    lastMonth.setUTCMonth(lastMonth.getUTCMonth() - 1);
    const card = { ...CARDS.visa, expMonth: lastMonth.getUTCMonth() + 1, expYear: lastMonth.getUTCFullYear() };
    expectCardError(await postToken(tenant, session, tokenBody(session, card)), 'CARD_EXPIRED', [
      'encryptedCard.expiryYear',
    ]);
  });

  it('refuses month 13 and a 2-digit year with 400 INVALID_EXPIRY', async () => {
    const body = tokenBody(session, CARDS.visa) as any;
    body.encryptedCard.expiryMonth = encryptCompactJwe(session.encryption.jwk, '13', {
      sid: session.sessionId,
      fld: 'expiryMonth',
    });
    expectCardError(await postToken(tenant, session, body), 'INVALID_EXPIRY', ['encryptedCard.expiryMonth']);
    const short = tokenBody(session, CARDS.visa) as any;
    short.encryptedCard.expiryYear = encryptCompactJwe(session.encryption.jwk, '29', {
      sid: session.sessionId,
      fld: 'expiryYear',
    });
    expectCardError(await postToken(tenant, session, short), 'INVALID_EXPIRY', ['encryptedCard.expiryYear']);
  });

  it('wants 3 CVC digits for visa and 4 for amex (400 INVALID_CVC otherwise)', async () => {
    expectCardError(
      await postToken(tenant, session, tokenBody(session, { ...CARDS.visa, cvc: '1234' })),
      'INVALID_CVC',
      ['encryptedCard.cvc'],
    );
    const amex = { ...CARDS.amex, cvc: '123' };
    expectCardError(await postToken(tenant, session, tokenBody(session, amex)), 'INVALID_CVC', ['encryptedCard.cvc']);
  });

  it('refuses metadata that does not describe the encrypted card with 400 CARD_METADATA_MISMATCH naming each field', async () => {
    const body = {
      encryptedCard: encryptCard(session, CARDS.visa),
      metadata: { brand: 'mastercard', last4: '1111', bin: '555555', expiryMonth: '11', expiryYear: '2040' },
    };
    const res = await postToken(tenant, session, body);
    expectCardError(res, 'CARD_METADATA_MISMATCH', [
      'metadata.brand',
      'metadata.last4',
      'metadata.bin',
      'metadata.expiryMonth',
      'metadata.expiryYear',
    ]);
  });

  it('refuses a brand no active connector accepts with 422 CARD_BRAND_NOT_ALLOWED', async () => {
    const res = await postToken(tenant, session, tokenBody(session, CARDS.elo));
    const error = expectError(res, 422, 'business_rule_error', 'CARD_BRAND_NOT_ALLOWED');
    expect(error.details).to.deep.include({ card_brand: 'elo' });
  });

  it('refuses every card when the merchant has no active connector (422)', async () => {
    const bare = await createTenant();
    const bareSession = await openSession(bare);
    expectError(
      await postToken(bare, bareSession, tokenBody(bareSession, CARDS.visa)),
      422,
      'business_rule_error',
      'CARD_BRAND_NOT_ALLOWED',
    );
  });
});
