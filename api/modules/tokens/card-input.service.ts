/**
 * From the browser's encryptedCard + metadata to a checked card: decrypt every field (bound to this session
 * and to its field name), validate the card, and make sure the unencrypted metadata describes the same card.
 * Error messages name fields, never values: nothing decrypted ever reaches a response or a log line.
 */
import type { Static } from '@sinclair/typebox';
import { errors, type ApiError } from '../../../domain/platform/errors';
import { decryptCompactJwe, JweError } from '../../../domain/platform/jwe';
import type { VaultKeys } from '../../../domain/platform/vault-keys';
import { binOf, cvcLength, detectBrand, isCardExpired, luhnValid, validLength, type CardBrand } from './card.rules';
import type { CardMetadataInput, EncryptedCardInput } from './tokens.schema';

export interface CheckedCard {
  pan: string;
  cvc: string;
  expMonth: number;
  expYear: number;
  holderName: string | null;
  brand: CardBrand;
  bin: string;
  last4: string;
}

/** How far ahead an expiry date may be: issuers print at most ~10 years; 20 allows for outliers. */
const MAX_YEARS_AHEAD = 20;

const field = (name: string) => `encryptedCard.${name}`;

const cardError = (code: string, name: string, message: string): ApiError =>
  errors.validation({ [name]: [message] }, message, code);

function open(vault: VaultKeys, sessionId: string, name: string, compact: string): string {
  try {
    const { plaintext, header } = decryptCompactJwe(vault.privateKey, vault.kid, compact);
    // The header is authenticated data: these bindings cannot be edited without failing decryption.
    if (header.sid !== sessionId)
      throw new JweError('wrong_key', 'The card data was encrypted for another browser session');
    if (header.fld !== name) throw new JweError('malformed', `The ciphertext is not the ${name} field`);
    return plaintext.toString('utf8');
  } catch (error) {
    if (!(error instanceof JweError)) throw error;
    const code = error.reason === 'wrong_key' ? 'CARD_ENCRYPTION_KEY_MISMATCH' : 'CARD_DECRYPTION_FAILED';
    throw cardError(code, field(name), error.message);
  }
}

const asInt = (value: number | string) => (typeof value === 'number' ? value : Number.parseInt(value, 10));

export function decryptAndCheckCard(
  vault: VaultKeys,
  sessionId: string,
  encrypted: Static<typeof EncryptedCardInput>,
  metadata: Static<typeof CardMetadataInput>,
  now: Date,
): CheckedCard {
  const pan = open(vault, sessionId, 'number', encrypted.number).replace(/[\s-]/g, '');
  const cvc = open(vault, sessionId, 'cvc', encrypted.cvc).trim();
  const monthText = open(vault, sessionId, 'expiryMonth', encrypted.expiryMonth).trim();
  const yearText = open(vault, sessionId, 'expiryYear', encrypted.expiryYear).trim();
  const holderName =
    encrypted.name === undefined ? null : open(vault, sessionId, 'name', encrypted.name).trim() || null;

  if (!/^[0-9]{12,19}$/.test(pan) || !luhnValid(pan)) {
    throw cardError('INVALID_CARD_NUMBER', field('number'), 'The card number is not valid');
  }
  const brand = detectBrand(pan);
  if (!brand) throw cardError('UNSUPPORTED_CARD_BRAND', field('number'), 'The card brand is not recognised');
  if (!validLength(brand, pan))
    throw cardError('INVALID_CARD_NUMBER', field('number'), `The card number has the wrong length for ${brand}`);

  if (!/^(0?[1-9]|1[0-2])$/.test(monthText))
    throw cardError('INVALID_EXPIRY', field('expiryMonth'), 'The expiry month must be 1-12');
  if (!/^[0-9]{4}$/.test(yearText))
    throw cardError('INVALID_EXPIRY', field('expiryYear'), 'The expiry year must have 4 digits');
  const expMonth = Number.parseInt(monthText, 10);
  const expYear = Number.parseInt(yearText, 10);
  if (isCardExpired(expMonth, expYear, now))
    throw cardError('CARD_EXPIRED', field('expiryYear'), 'The card has expired');
  if (expYear > now.getUTCFullYear() + MAX_YEARS_AHEAD)
    throw cardError('INVALID_EXPIRY', field('expiryYear'), 'The expiry year is too far ahead');

  const expected = cvcLength(brand);
  if (!new RegExp(`^[0-9]{${expected}}$`).test(cvc)) {
    throw cardError('INVALID_CVC', field('cvc'), `The security code must have ${expected} digits for ${brand}`);
  }
  if (holderName !== null && holderName.length > 100)
    throw cardError('INVALID_CARDHOLDER_NAME', field('name'), 'The cardholder name is too long');

  const card: CheckedCard = { pan, cvc, expMonth, expYear, holderName, brand, bin: binOf(pan), last4: pan.slice(-4) };
  checkMetadata(card, metadata);
  return card;
}

/** The unencrypted metadata must describe the encrypted card; every mismatching field is named. */
function checkMetadata(card: CheckedCard, metadata: Static<typeof CardMetadataInput>): void {
  const mismatched: Record<string, string[]> = {};
  const mismatch = (name: string, what: string) =>
    (mismatched[`metadata.${name}`] = [`does not match the encrypted card's ${what}`]);
  if (metadata.brand.trim().toLowerCase() !== card.brand) mismatch('brand', 'brand');
  if (metadata.last4 !== card.last4) mismatch('last4', 'last four digits');
  if (!card.pan.startsWith(metadata.bin)) mismatch('bin', 'leading digits');
  if (asInt(metadata.expiryMonth) !== card.expMonth) mismatch('expiryMonth', 'expiry month');
  if (asInt(metadata.expiryYear) !== card.expYear) mismatch('expiryYear', 'expiry year');
  if (Object.keys(mismatched).length > 0) {
    throw errors.validation(
      mismatched,
      'The card metadata does not match the encrypted card',
      'CARD_METADATA_MISMATCH',
    );
  }
}
