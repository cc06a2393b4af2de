/** Document 3's Payment instrument (domain/payment-instruments: the events present it the same way). */
import type { PaymentInstrument } from '../../../db/entities';
import { presentInstrument } from '../../../domain/payment-instruments/payment-instruments.presenter';

export { presentInstrument };

export const presentCreatedInstrument = (instrument: PaymentInstrument, deduplicated: boolean, now: Date) => ({
  ...presentInstrument(instrument, now),
  deduplicated,
});
