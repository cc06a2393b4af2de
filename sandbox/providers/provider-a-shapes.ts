/**
 * provider_a's Stripe objects as its API returns them — PaymentIntent, SetupIntent, Refund, the error bodies (a card
 * decline is a 402 card_error carrying the intent) — and its webhook events, signed Standard-Webhooks style. The
 * metadata each object carries is the provider's state, so the objects are made for one provider instance.
 */
import { createHmac } from 'node:crypto';
import { json, type Reply } from '../http';
import type { Payment, Refund } from '../store';
import type { ProviderModule } from './common';

const DECLINES: Record<string, { code: string; decline_code?: string; message: string }> = {
  do_not_honor: { code: 'card_declined', decline_code: 'do_not_honor', message: 'Your card was declined.' },
  insufficient_funds: {
    code: 'card_declined',
    decline_code: 'insufficient_funds',
    message: 'Your card has insufficient funds.',
  },
  stolen_card: { code: 'card_declined', decline_code: 'stolen_card', message: 'Your card was declined.' },
  lost_card: { code: 'card_declined', decline_code: 'lost_card', message: 'Your card was declined.' },
  expired_card: { code: 'expired_card', decline_code: 'expired_card', message: 'Your card has expired.' },
  invalid_number: { code: 'incorrect_number', message: 'Your card number is incorrect.' },
  fraud: { code: 'card_declined', decline_code: 'fraudulent', message: 'Your card was declined.' },
  authentication_required: {
    code: 'card_declined',
    decline_code: 'authentication_required',
    message: 'Your card was declined. This transaction requires authentication.',
  },
  authentication_failed: {
    code: 'payment_intent_authentication_failure',
    message:
      'We are unable to authenticate your payment method. Please choose a different payment method and try again.',
  },
};

export const err = (status: number, error: Record<string, unknown>): Reply => json(status, { error });
export const serverError = () => err(500, { type: 'api_error', message: 'An unknown error occurred' });
export const missing = (id: string) =>
  err(404, { type: 'invalid_request_error', code: 'resource_missing', message: `No such payment_intent: '${id}'` });
export const invalid = (param: string, message: string) =>
  err(400, { type: 'invalid_request_error', code: 'parameter_invalid', param, message });

/** An intent's or refund's metadata as sent, or `{reference}` for one made without it. */
export type MetadataOf = (id: string, reference: string | null) => Record<string, string>;

export type StripeObjects = ReturnType<typeof stripeObjects>;

export function stripeObjects(metadataFor: MetadataOf) {
  function paymentIntent(payment: Payment, expand: boolean): Record<string, unknown> {
    const status = {
      authorized: 'requires_capture',
      captured: 'succeeded',
      voided: 'canceled',
      declined: 'requires_payment_method',
      pending: 'processing',
      expired: 'canceled',
      verified: 'succeeded',
      requires_action: 'requires_action',
    }[payment.state];
    const three = payment.threeDs;
    const charge = {
      id: `ch_${payment.id.slice(3)}`,
      object: 'charge',
      payment_method_details: {
        type: payment.method === 'wallet' ? 'link' : 'card',
        card: payment.cardLast4
          ? {
              brand: payment.cardBrand,
              last4: payment.cardLast4,
              network_transaction_id: payment.networkTransactionId,
              three_d_secure: three?.result
                ? {
                    authentication_flow: three.flow,
                    result: three.result,
                    result_reason: null,
                    version: '2.2.0',
                    electronic_commerce_indicator: three.result === 'authenticated' ? '05' : '07',
                  }
                : null,
            }
          : null,
      },
    };
    const decline = payment.declineReason ? DECLINES[payment.declineReason] : null;
    return {
      id: payment.id,
      object: 'payment_intent',
      amount: payment.amount,
      amount_capturable: payment.state === 'authorized' ? payment.amount : 0,
      amount_received: payment.capturedAmount,
      currency: payment.currency.toLowerCase(),
      status,
      capture_method: payment.state === 'authorized' ? 'manual' : 'automatic',
      metadata: metadataFor(payment.id, payment.reference),
      latest_charge: expand ? charge : charge.id,
      created: Math.floor(Date.parse(payment.createdAt) / 1000),
      livemode: false,
      cancellation_reason: payment.state === 'expired' ? 'abandoned' : null,
      last_payment_error: decline ? { type: 'card_error', ...decline } : null,
      // Stripe's redirect-based 3-D Secure: the buyer goes to `url`, and comes back to the intent's return_url.
      next_action:
        payment.state === 'requires_action'
          ? {
              type: 'redirect_to_url',
              redirect_to_url: {
                url: three?.challengeUrl,
                return_url: three?.returnUrl,
              },
            }
          : null,
    };
  }

  /** Declines are 402 card_errors carrying the intent, as Stripe answers a failed confirmation. */
  function intentReply(payment: Payment, expand: boolean, kind: 'payment_intent' | 'setup_intent'): Reply {
    const body = kind === 'payment_intent' ? paymentIntent(payment, expand) : setupIntent(payment);
    if (payment.state !== 'declined') return json(200, body);
    return err(402, { type: 'card_error', ...DECLINES[payment.declineReason!], [kind]: body });
  }

  function setupIntent(payment: Payment): Record<string, unknown> {
    return {
      id: payment.id,
      object: 'setup_intent',
      status: payment.state === 'declined' ? 'requires_payment_method' : 'succeeded',
      usage: 'off_session',
      metadata: metadataFor(payment.id, payment.reference),
      livemode: false,
      latest_attempt: { network_transaction_id: payment.networkTransactionId },
    };
  }

  function refundObject(record: Refund): Record<string, unknown> {
    return {
      id: record.id,
      object: 'refund',
      amount: record.amount,
      currency: record.currency.toLowerCase(),
      payment_intent: record.paymentId,
      status: record.state,
      failure_reason: record.state === 'failed' ? 'declined' : null,
      metadata: metadataFor(record.id, record.reference),
      created: Math.floor(Date.parse(record.createdAt) / 1000),
    };
  }

  function stateError(payment: Payment, error: string): Reply {
    if (error === 'amount_too_large')
      return err(400, {
        type: 'invalid_request_error',
        code: 'amount_too_large',
        message: 'The amount exceeds what can be captured or refunded.',
      });
    return err(400, {
      type: 'invalid_request_error',
      code: 'payment_intent_unexpected_state',
      message: `This PaymentIntent's status is ${String(paymentIntent(payment, false).status)}.`,
    });
  }

  const webhook: ProviderModule['webhook'] = (event, payment, refundRecord, endpoint) => {
    let type = {
      'payment.succeeded': 'payment_intent.succeeded',
      'payment.failed': 'payment_intent.payment_failed',
      'payment.expired': 'payment_intent.canceled',
      'refund.succeeded': 'refund.updated',
      'refund.failed': 'refund.failed',
      'dispute.opened': 'charge.dispute.created',
      'dispute.updated': 'charge.dispute.updated',
      'dispute.closed': 'charge.dispute.closed',
    }[event.type];
    // Stripe announces a manual-capture intent that became capturable (requires_capture) with this event, not
    // payment_intent.succeeded, which it sends only once the money is captured.
    const capturable = event.type === 'payment.succeeded' && payment?.state === 'authorized';
    if (capturable) type = 'payment_intent.amount_capturable_updated';
    let object: Record<string, unknown>;
    if (refundRecord) object = refundObject(refundRecord);
    else if (event.type.startsWith('dispute.')) {
      const status =
        event.disputeStatus === 'opened'
          ? 'needs_response'
          : event.disputeStatus === 'updated'
            ? 'under_review'
            : event.disputeStatus;
      object = {
        id: `dp_${event.paymentId.slice(3)}`,
        object: 'dispute',
        amount: event.amount,
        currency: event.currency.toLowerCase(),
        payment_intent: event.paymentId,
        charge: `ch_${event.paymentId.slice(3)}`,
        reason: 'fraudulent',
        status,
        metadata: event.reference ? { reference: event.reference } : {},
      };
    } else object = payment ? paymentIntent(payment, false) : { id: event.paymentId };
    const body = JSON.stringify({
      id: event.id,
      object: 'event',
      api_version: '2024-06-20',
      created: Math.floor(Date.parse(event.createdAt) / 1000),
      livemode: false,
      type,
      data: { object },
    });
    return { headers: standardWebhookHeaders(event.id, endpoint.secret, body), body };
  };

  return { paymentIntent, intentReply, setupIntent, refundObject, stateError, webhook };
}

/** Standard Webhooks: HMAC-SHA256 over `${id}.${timestamp}.${body}` with the base64 key after whsec_. */
export function standardWebhookHeaders(
  id: string,
  secret: string,
  body: string,
  timestamp = Math.floor(Date.now() / 1000),
): Record<string, string> {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const signature = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64');
  return { 'webhook-id': id, 'webhook-timestamp': String(timestamp), 'webhook-signature': `v1,${signature}` };
}
