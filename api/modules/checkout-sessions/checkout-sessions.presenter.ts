/** Document 2's checkout session, line item and event shapes (snake_case, ISO timestamps, explicit nulls). */
import type { CheckoutEvent, CheckoutItem } from '../../../db/entities';
import type { CheckoutView } from './checkout-sessions.service';

const iso = (date: Date | null) => (date ? date.toISOString() : null);

export function presentItem(item: CheckoutItem) {
  return {
    id: item.id,
    checkout_session_id: item.checkoutSessionId,
    offer_id: item.offerId,
    currency: item.currency,
    amount: item.amount,
    first_charge_amount: item.firstChargeAmount,
    quantity: item.quantity,
    installments: item.installments,
    created_at: item.createdAt.toISOString(),
  };
}

export function presentEvent(event: CheckoutEvent) {
  return {
    id: event.id,
    checkout_session_id: event.checkoutSessionId,
    event_type: event.eventType,
    source_url: event.sourceUrl,
    utm_source: event.utmSource,
    utm_medium: event.utmMedium,
    utm_campaign: event.utmCampaign,
    ip_address: event.ipAddress,
    user_agent: event.userAgent,
    metadata: event.metadata,
    created_at: event.createdAt.toISOString(),
  };
}

/** `items` and `events` appear only when the view carries them (lists never do). */
export function presentSession({ session, status, items, events }: CheckoutView) {
  return {
    id: session.id,
    merchant_id: session.merchantId,
    mode: session.mode,
    offer_id: session.offerId,
    customer_id: session.customerId,
    customer_email: session.customerEmail,
    customer_name: session.customerName,
    selected_currency: session.selectedCurrency,
    status,
    external_session_id: session.externalSessionId,
    expires_at: iso(session.expiresAt),
    completed_at: iso(session.completedAt),
    payment_instrument_id: session.paymentInstrumentId,
    success_url: session.successUrl,
    cancel_url: session.cancelUrl,
    created_at: session.createdAt.toISOString(),
    updated_at: session.updatedAt.toISOString(),
    ...(items ? { items: items.map(presentItem) } : {}),
    ...(events ? { events: events.map(presentEvent) } : {}),
  };
}
