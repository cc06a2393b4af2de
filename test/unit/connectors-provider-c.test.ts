import { expect } from 'chai';
import {
  InvalidWebhookError,
  type InboundWebhook,
  type Outcome,
  UnhandledWebhookEventError,
} from '../../domain/connectors/connector';
import {
  CARD_TOKEN_CAUSES,
  EVENT_TYPES,
  fromCardToken,
  fromPayment,
  fromRefund,
  fromUpdate,
  PAYMENT_STATUSES,
  paymentMethodIdOf,
  REFUND_STATUSES,
  REJECTION_DETAILS,
  webhookType,
} from '../../domain/connectors/provider_c/transformers';
import { parseWebhook } from '../../domain/connectors/provider_c/webhook';
import { signatureHeaders } from '../../sandbox/providers/provider-c-shapes';
import { answer, rowByRow } from '../helpers/rows';

describe('provider_c transformers: status and status_detail → outcome', () => {
  rowByRow(
    PAYMENT_STATUSES,
    {
      approved: 'approved',
      authorized: 'approved',
      in_process: 'pending',
      pending: 'pending',
      in_mediation: 'pending',
      cancelled: 'soft_decline',
      refunded: 'processing_error',
    },
    (status, outcome) => `a payment in status ${status} is ${outcome}`,
    (status, outcome) => {
      expect(fromPayment(answer(201, { id: 123, status, status_detail: 'x' }))).to.include({
        outcome,
        providerReference: '123',
      });
    },
  );

  const details: Record<string, Outcome> = {
    cc_rejected_other_reason: 'soft_decline',
    cc_rejected_call_for_authorize: 'soft_decline',
    cc_rejected_insufficient_amount: 'soft_decline',
    cc_rejected_bad_filled_other: 'soft_decline',
    cc_rejected_bad_filled_security_code: 'soft_decline',
    cc_rejected_card_disabled: 'soft_decline',
    cc_rejected_invalid_installments: 'soft_decline',
    cc_rejected_max_attempts: 'soft_decline',
    cc_rejected_card_error: 'processing_error',
    cc_rejected_bad_filled_card_number: 'hard_decline',
    cc_rejected_bad_filled_date: 'hard_decline',
    cc_rejected_blacklist: 'hard_decline',
    cc_rejected_high_risk: 'hard_decline',
    cc_rejected_duplicated_payment: 'hard_decline',
    rejected_high_risk: 'hard_decline',
    rejected_by_regulations: 'hard_decline',
    rejected_by_bank: 'soft_decline',
    rejected_insufficient_data: 'soft_decline',
    cc_rejected_3ds_challenge: 'hard_decline',
    cc_rejected_3ds_mandatory: 'soft_decline',
    cc_rejected_brand_new_reason: 'soft_decline',
  };
  rowByRow(
    REJECTION_DETAILS,
    details,
    (detail, outcome) => `a rejected payment with ${detail} is ${outcome}, raw code = the detail`,
    (detail, outcome) => {
      expect(fromPayment(answer(201, { id: 9, status: 'rejected', status_detail: detail }))).to.include({
        outcome,
        rawCode: detail,
      });
    },
  );

  rowByRow(
    CARD_TOKEN_CAUSES,
    {
      E301: 'hard_decline',
      205: 'hard_decline',
      208: 'hard_decline',
      209: 'hard_decline',
      325: 'hard_decline',
      326: 'hard_decline',
      E302: 'soft_decline',
      224: 'soft_decline',
    },
    (cause, outcome) => `a card token refused with cause ${cause} is ${outcome}`,
    (cause, outcome) => {
      expect(fromCardToken(answer(400, { message: 'invalid', cause: [{ code: cause, description: 'x' }] }))).to.include(
        { outcome, rawCode: cause },
      );
    },
  );

  it('a created card token is no result (the adapter goes on to charge)', () => {
    expect(fromCardToken(answer(201, { id: 'tok' }))).to.equal(null);
  });

  rowByRow(
    REFUND_STATUSES,
    { approved: 'approved', in_process: 'pending', rejected: 'hard_decline', cancelled: 'hard_decline' },
    (status, outcome) => `a refund in status ${status} is ${outcome}`,
    (status, outcome) => {
      expect(fromRefund(answer(201, { id: 77, status }))).to.include({ outcome, providerReference: '77' });
    },
  );

  it('pix QR codes become payment instructions', () => {
    const body = {
      id: 5,
      status: 'pending',
      status_detail: 'pending_waiting_transfer',
      date_of_expiration: '2030-01-01T00:00:00Z',
      point_of_interaction: { transaction_data: { qr_code: '000201…', ticket_url: 'https://t' } },
    };
    expect(fromPayment(answer(201, body)).paymentInstructions).to.deep.equal({
      type: 'pix',
      qr_code_text: '000201…',
      qr_code_url: 'https://t',
      expires_at: '2030-01-01T00:00:00Z',
    });
  });

  it('updates are approved only in the expected status; 4xx is processing_error, 5xx unknown', () => {
    expect(fromUpdate(answer(200, { id: 1, status: 'approved' }), 'approved').outcome).to.equal('approved');
    expect(fromUpdate(answer(200, { id: 1, status: 'cancelled' }), 'approved').outcome).to.equal('processing_error');
    expect(fromPayment(answer(500, { message: 'internal_error' }))).to.include({
      outcome: 'unknown',
      rawCode: 'http_500',
    });
    expect(fromPayment(answer(401, { error: 'unauthorized' }))).to.include({
      outcome: 'processing_error',
      rawCode: 'unauthorized',
    });
    expect(fromPayment(answer(400, { cause: [{ code: '4037' }] }))).to.include({
      outcome: 'processing_error',
      rawCode: '4037',
    });
  });

  it('maps card numbers to payment_method_id by BIN', () => {
    expect(
      [
        '4242424242424242',
        '5555555555554444',
        '378282246310005',
        '6362970000457013',
        '6062825624254001',
        '6011111111111117',
      ].map(paymentMethodIdOf),
    ).to.deep.equal(['visa', 'master', 'amex', 'elo', 'hipercard', null]);
  });
});

describe('provider_c webhooks', () => {
  rowByRow<InboundWebhook['type']>(
    EVENT_TYPES,
    {
      'payment:approved': 'payment.succeeded',
      'payment:rejected': 'payment.failed',
      'payment:cancelled': 'payment.expired',
      'payment:expired': 'payment.expired',
      'payment:refunded': 'refund.succeeded',
      'refund:approved': 'refund.succeeded',
      'refund:rejected': 'refund.failed',
      'refund:cancelled': 'refund.failed',
      'chargebacks:chargeback.created': 'dispute.opened',
      'chargebacks:chargeback.updated': 'dispute.updated',
      'chargebacks:chargeback.closed': 'dispute.closed',
    },
    (key, ours) => `${key} is ${ours}`,
    (key, ours) => {
      const [type, value] = key.split(':');
      if (type === 'chargebacks') expect(webhookType(type, value, {})).to.equal(ours);
      else if (value === 'expired')
        expect(webhookType(type, 'payment.updated', { status: 'cancelled', status_detail: 'expired' })).to.equal(ours);
      else expect(webhookType(type, 'payment.updated', { status: value })).to.equal(ours);
    },
  );

  // Mercado Pago: `cancelled` = "cancelled by one of the parties or because the time for payment expired" — never
  // a refusal (that is `rejected`). Settlement's own read calls it an expiry; the notification must agree.
  it('a cancelled payment is an expiry, not a failure, whatever its status_detail', () => {
    for (const detail of ['by_collector', 'by_payer', 'expired', undefined])
      expect(webhookType('payment', 'payment.updated', { status: 'cancelled', status_detail: detail })).to.equal(
        'payment.expired',
      );
  });

  const secret = 'mp-webhook-secret-0123456789';
  const body = JSON.stringify({
    id: 1234,
    type: 'payment',
    action: 'payment.updated',
    date_created: '2026-11-21T10:00:00Z',
    data: { id: '555', status: 'approved', external_reference: 'tx_1', transaction_amount: 10.5, currency_id: 'BRL' },
  });

  it('parses a correctly signed notification, with the amount in minor units', () => {
    const event = parseWebhook({
      headers: signatureHeaders('555', body, secret),
      rawBody: body,
      webhookSecret: secret,
    });
    expect(event).to.include({
      eventId: '1234',
      type: 'payment.succeeded',
      providerReference: '555',
      reference: 'tx_1',
      amount: 1050,
    });
  });

  it('refuses a tampered body, a stale ts, a missing x-signature or no secret', () => {
    const headers = signatureHeaders('555', body, secret);
    expect(() =>
      parseWebhook({ headers, rawBody: body.replace('approved', 'rejected'), webhookSecret: secret }),
    ).to.throw(InvalidWebhookError);
    const stale = signatureHeaders('555', body, secret, Math.floor(Date.now() / 1000) - 600);
    expect(() => parseWebhook({ headers: stale, rawBody: body, webhookSecret: secret })).to.throw(
      InvalidWebhookError,
      /tolerance/,
    );
    expect(() => parseWebhook({ headers: {}, rawBody: body, webhookSecret: secret })).to.throw(InvalidWebhookError);
    expect(() => parseWebhook({ headers, rawBody: body, webhookSecret: null })).to.throw(InvalidWebhookError);
  });

  it('signals an intermediate status with UnhandledWebhookEventError', () => {
    const inProcess = body.replace('"approved"', '"in_process"');
    expect(() =>
      parseWebhook({ headers: signatureHeaders('555', inProcess, secret), rawBody: inProcess, webhookSecret: secret }),
    ).to.throw(UnhandledWebhookEventError);
  });
});
