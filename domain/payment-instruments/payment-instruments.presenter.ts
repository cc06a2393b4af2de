/**
 * Document 3's Payment instrument, as the API and the payment_method.* events present it. The sealed PAN, name and
 * fingerprint are never read here.
 */
import type { InstrumentStatus, PaymentInstrument } from '../../db/entities';

/**
 * An active instrument whose card expiry month has passed IS expired, on every read and filter, whether or not
 * anything has stored that yet.
 */
export function effectiveInstrumentStatus(instrument: PaymentInstrument, now: Date): InstrumentStatus {
  if (instrument.status === 'active' && instrument.cardExpiresAt && instrument.cardExpiresAt.getTime() <= now.getTime())
    return 'expired';
  return instrument.status;
}

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
