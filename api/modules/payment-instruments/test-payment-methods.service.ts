/**
 * Test payment methods (docs/api-decisions.md, "Test payment methods"): `pm_card_visa` and the others stand for a
 * sandbox test card, so an API-only test suite can save a card and charge it without a page. The card is sealed as a
 * typed card is (encrypted number, keyed fingerprint) and saved through the same path; its number is never shown.
 * Test mode only: a merchant with a live connector could send the sandbox number to a real provider.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { MerchantConnectorSchema, type PaymentInstrument } from '../../../db/entities';
import type { Config } from '../../../domain/platform/config';
import { encryptSecret } from '../../../domain/platform/crypto';
import { errors } from '../../../domain/platform/errors';
import { cardFingerprint } from '../../../domain/platform/vault-keys';
import {
  TEST_PAYMENT_METHODS,
  type TestPaymentMethod,
} from '../../../domain/payment-instruments/payment-instruments.sandbox-cards';
import { binOf, detectBrand } from '../tokens/card.rules';
import { requireMerchantCustomer, saveSealedCard, type EnrolmentInput } from './payment-instruments.service';

/** A test card's expiry: December, this many years ahead (any future expiry is accepted by the sandbox). */
const TEST_CARD_YEARS_AHEAD = 3;

export async function saveTestPaymentMethod(
  em: EntityManager,
  config: Pick<Config, 'vault' | 'encryptionKeys'>,
  method: TestPaymentMethod,
  input: EnrolmentInput,
  now: Date,
): Promise<{ instrument: PaymentInstrument; deduplicated: boolean }> {
  await requireMerchantCustomer(em, input.merchantId, input.customerId, 'customer_id');
  const live = await em.count(MerchantConnectorSchema, { merchantId: input.merchantId, isTestMode: false });
  if (live > 0) {
    throw errors.validation(
      { payment_method: ['test payment methods are for test mode only'] },
      'Test payment methods (pm_card_*) are for test mode only: this merchant has a live connector',
      'TEST_PAYMENT_METHOD_LIVE_MODE',
    );
  }
  const pan = TEST_PAYMENT_METHODS[method];
  const card = {
    cardBrand: detectBrand(pan) as string,
    last4: pan.slice(-4),
    bin: binOf(pan),
    expMonth: 12,
    expYear: now.getUTCFullYear() + TEST_CARD_YEARS_AHEAD,
    panEncrypted: encryptSecret(config.encryptionKeys, pan),
    holderNameEncrypted: null,
    fingerprint: cardFingerprint(config.vault, pan),
  };
  return saveSealedCard(em, card, input, now);
}
