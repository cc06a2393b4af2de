/**
 * A checkout session in setup mode takes one card, as a payment session takes one payment: the card verification
 * claims it (payment_pending, its workflow id as the paying id) before any provider sees the card, so a second tab
 * saving another card at the same time gets 409 and a completed session saves nothing more. The claim ends with the
 * verification: completed naming the saved instrument, or given back to the buyer when no card was saved
 * (db/repositories/checkout-sessions.repository.ts: completeSetup, releaseSetupClaim).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { CheckoutSessionSchema, type CheckoutSession } from '../../../db/entities';
import { claimForPayment } from '../../../db/repositories/checkout-sessions.repository';
import { errors } from '../../../domain/platform/errors';
import { effectiveStatus } from './checkout-status.rules';

export const isSetupCheckout = (checkout: CheckoutSession | null): checkout is CheckoutSession =>
  checkout?.mode === 'setup';

/** 409 while another verification holds the session, 422 once it cannot take a card (completed, expired …). */
export async function claimSetupCheckout(em: EntityManager, checkoutId: string, verificationId: string): Promise<void> {
  if (await claimForPayment(em, checkoutId, verificationId)) return;
  const session = await em.findOneOrFail(CheckoutSessionSchema, { id: checkoutId }, { refresh: true });
  const status = effectiveStatus(session, new Date());
  if (status === 'payment_pending')
    throw errors.conflict(
      'CHECKOUT_SESSION_PAYMENT_IN_PROGRESS',
      'Another card of this checkout session is being verified; read its outcome before trying again',
      { checkout_session_id: checkoutId },
    );
  throw errors.businessRule('INVALID_STATE_TRANSITION', `A checkout session that is ${status} cannot save a card`, {
    status,
  });
}
