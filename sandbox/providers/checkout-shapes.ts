/**
 * checkout (Checkout.com-like) resource shapes and notifications: the payment as the API returns it (with its
 * `3ds` object), the actions processed on it, and the signed webhook for a neutral sandbox event.
 */
import { createHmac } from 'node:crypto';
import type { DeclineReason } from '../cards';
import { randomChars, type Payment, type Refund, type SandboxEvent, type Store } from '../store';
import type { RenderedWebhook } from './common';

const CODES: Record<DeclineReason, [string, string]> = {
  do_not_honor: ['20005', 'Declined - Do not honour'],
  insufficient_funds: ['20051', 'Insufficient Funds'],
  stolen_card: ['30043', 'Stolen card - Pick up'],
  lost_card: ['30041', 'Lost card - Pick up'],
  expired_card: ['20054', 'Expired card'],
  invalid_number: ['20014', 'Invalid card number'],
  fraud: ['20059', 'Suspected fraud'],
  authentication_required: ['20154', '3DS authentication required'],
  authentication_failed: ['20151', 'Cardholder failed 3DS authentication'],
};

const EVENT_TYPES = {
  'payment.succeeded': 'payment_captured',
  'payment.failed': 'payment_declined',
  'payment.expired': 'payment_expired',
  'refund.succeeded': 'payment_refunded',
  'refund.failed': 'payment_refund_declined',
  'dispute.opened': 'dispute_received',
  'dispute.updated': 'dispute_evidence_submitted',
} as const;

export const actionId = () => `act_${randomChars(26, 'lower')}`;

/**
 * The payment's `3ds` object as GET /payments/{id} shows it: enrolment while the challenge is open, then the
 * authentication_response (Y authenticated, N failed), whether the buyer was challenged, the version and the ECI.
 */
function threeDsFields(payment: Payment): Record<string, unknown> {
  const three = payment.threeDs;
  if (!three) return {};
  if (!three.result) return { '3ds': { downgraded: false, enrolled: 'Y' } };
  const eci = three.result === 'authenticated' ? '05' : '07';
  return {
    eci,
    '3ds': {
      downgraded: false,
      enrolled: 'Y',
      signature_valid: 'Y',
      authentication_response: three.result === 'authenticated' ? 'Y' : 'N',
      version: '2.2.0',
      challenged: three.flow === 'challenge',
      eci,
    },
  };
}

/** The payment as POST /payments, GET /payments/{id} and the reference list return it. */
export function paymentBody(
  payment: Payment,
  { baseUrl, metadata }: { baseUrl: string; metadata: Record<string, string> },
): Record<string, unknown> {
  const decline = payment.declineReason ? CODES[payment.declineReason] : null;
  const status = decline
    ? 'Declined'
    : (
        {
          authorized: 'Authorized',
          captured: 'Captured',
          verified: 'Card Verified',
          voided: 'Voided',
          pending: 'Pending',
          requires_action: 'Pending',
          expired: 'Expired',
          declined: 'Declined',
        } as const
      )[payment.state];
  const [code, summary] = decline ?? ['10000', 'Approved'];
  const open = payment.state === 'requires_action';
  return {
    id: payment.id,
    action_id: actionId(),
    amount: payment.amount,
    currency: payment.currency,
    approved: !decline,
    status,
    auth_code: decline ? undefined : randomChars(6, 'digits'),
    response_code: code,
    response_summary: summary,
    reference: payment.reference,
    scheme_id: payment.networkTransactionId ?? undefined,
    source: payment.cardLast4
      ? { type: 'card', last4: payment.cardLast4, scheme: payment.cardBrand }
      : { type: 'token' },
    processed_on: payment.createdAt,
    metadata,
    ...threeDsFields(payment),
    _links: {
      self: { href: `${baseUrl}/checkout/payments/${payment.id}` },
      // Checkout.com's 3-D Secure: a Pending payment links the page the buyer is redirected to.
      ...(open ? { redirect: { href: payment.threeDs?.challengeUrl } } : {}),
    },
  };
}

/**
 * GET /payments/:id/actions: what was processed on the payment, newest first. Captures and voids apply at once
 * here; a refund shows once the provider decided it (pending refunds are not actions yet). A lagging read (the
 * lookup override `lag`) lists the authorization only: what followed is not listed yet.
 */
export function actionsOf(store: Store, payment: Payment, lagging: boolean): Record<string, unknown>[] {
  const approved = { approved: true, response_code: '10000', response_summary: 'Approved' };
  const actions: Record<string, unknown>[] = [
    {
      id: `act_${payment.id.slice(4)}`,
      type: 'Authorization',
      amount: payment.amount,
      processed_on: payment.createdAt,
      reference: payment.reference,
      ...approved,
    },
  ];
  if (lagging) return actions;
  if (payment.capturedAmount > 0)
    actions.push({ id: actionId(), type: 'Capture', amount: payment.capturedAmount, ...approved });
  if (payment.state === 'voided') actions.push({ id: actionId(), type: 'Void', amount: payment.amount, ...approved });
  for (const record of store.refunds.values()) {
    if (record.paymentId !== payment.id || record.state === 'pending') continue;
    actions.push({
      id: record.id,
      type: 'Refund',
      amount: record.amount,
      reference: record.reference,
      processed_on: record.createdAt,
      ...(record.state === 'succeeded'
        ? approved
        : { approved: false, response_code: '20005', response_summary: 'Declined - Do not honour' }),
    });
  }
  return actions.reverse();
}

/** Checkout.com's webhook for a neutral event, signed `Cko-Signature: <hex HMAC-SHA256 of the body>`. */
export function renderWebhook(
  event: SandboxEvent,
  payment: Payment | null,
  refundRecord: Refund | null,
  secret: string,
): RenderedWebhook {
  const type =
    event.type === 'dispute.closed'
      ? event.disputeStatus === 'won'
        ? 'dispute_won'
        : 'dispute_lost'
      : EVENT_TYPES[event.type];
  const decline = payment?.declineReason ? CODES[payment.declineReason] : null;
  const data: Record<string, unknown> = {
    id: event.paymentId,
    action_id: refundRecord?.id ?? `act_${event.id.slice(4, 30).toLowerCase()}`,
    amount: refundRecord?.amount ?? event.amount,
    currency: event.currency,
    reference: refundRecord?.reference ?? event.reference,
    ...(decline ? { response_code: decline[0], response_summary: decline[1] } : {}),
    ...(event.type.startsWith('dispute.')
      ? { payment_id: event.paymentId, id: `dsp_${event.paymentId.slice(4, 30)}`, status: event.disputeStatus }
      : {}),
  };
  const body = JSON.stringify({
    id: `evt_${event.id.slice(4).toLowerCase()}`,
    type,
    version: '1.0.0',
    created_on: event.createdAt,
    data,
  });
  return { headers: { 'cko-signature': createHmac('sha256', secret).update(body).digest('hex') }, body };
}
