/** Document 3's Payment instrument. The sealed PAN, name and fingerprint are never read here. */
import type { PaymentInstrument } from '../../../db/entities';
import { effectiveInstrumentStatus } from './instrument-status.rules';

export function presentInstrument(instrument: PaymentInstrument, now: Date) {
  return {
    id: instrument.id,
    merchant_id: instrument.merchantId,
    customer_id: instrument.customerId,
    instrument_type: instrument.instrumentType,
    card_brand: instrument.cardBrand,
    card_type: instrument.cardType,
    last4: instrument.last4,
    bin: instrument.bin,
    issuer_country: instrument.issuerCountry,
    exp_month: instrument.expMonth,
    exp_year: instrument.expYear,
    status: effectiveInstrumentStatus(instrument, now),
    created_at: instrument.createdAt.toISOString(),
  };
}

export const presentCreatedInstrument = (instrument: PaymentInstrument, deduplicated: boolean, now: Date) => ({
  ...presentInstrument(instrument, now),
  deduplicated,
});
