import { createHmac } from 'node:crypto';
import { expect } from 'chai';
import {
  InvalidWebhookError,
  type InboundWebhook,
  type Outcome,
  UnhandledWebhookEventError,
} from '../../domain/connectors/connector';
import {
  ACTION_OUTCOMES,
  EVENT_TYPES,
  fromAction,
  fromPayment,
  PAYMENT_STATUSES,
  RESPONSE_CODES,
  responseCodeOutcome,
} from '../../domain/connectors/checkout/transformers';
import { parseWebhook } from '../../domain/connectors/checkout/webhook';
import { answer, rowByRow } from '../helpers/rows';

describe('checkout transformers: status and response_code → outcome', () => {
  rowByRow(
    PAYMENT_STATUSES,
    {
      Authorized: 'approved',
      Captured: 'approved',
      'Card Verified': 'approved',
      'Partially Captured': 'approved',
      Paid: 'approved',
      Pending: 'pending',
      Declined: 'soft_decline',
      Canceled: 'soft_decline',
      Expired: 'soft_decline',
      Weird: 'processing_error',
    },
    (status, outcome) => `a payment in status ${status} (no response code) is ${outcome}`,
    (status, outcome) => {
      expect(fromPayment(answer(201, { id: 'pay_1', status }))).to.include({ outcome, providerReference: 'pay_1' });
    },
  );

  const codes: Record<string, Outcome> = {
    10000: 'approved',
    10008: 'approved',
    10100: 'approved',
    20001: 'soft_decline',
    20005: 'soft_decline',
    20012: 'soft_decline',
    20014: 'hard_decline',
    20046: 'soft_decline',
    20051: 'soft_decline',
    20054: 'hard_decline',
    20055: 'soft_decline',
    20057: 'hard_decline',
    20059: 'hard_decline',
    20061: 'soft_decline',
    20062: 'hard_decline',
    20065: 'soft_decline',
    20091: 'processing_error',
    20096: 'processing_error',
    20150: 'soft_decline',
    20151: 'hard_decline',
    20154: 'soft_decline',
    30004: 'hard_decline',
    30007: 'hard_decline',
    30041: 'hard_decline',
    30043: 'hard_decline',
    40101: 'hard_decline',
    40201: 'hard_decline',
    // Codes outside the table fall back to the provider's classes.
    20999: 'soft_decline',
    30999: 'hard_decline',
    40999: 'hard_decline',
    50000: 'processing_error',
  };
  rowByRow(
    RESPONSE_CODES,
    codes,
    (code, outcome) => `response_code ${code} is ${outcome}`,
    (code, outcome) => {
      expect(responseCodeOutcome(code)).to.equal(outcome);
    },
  );

  it('a Declined payment is classified by its response code, kept as the raw code', () => {
    const body = {
      id: 'pay_1',
      status: 'Declined',
      approved: false,
      response_code: '30043',
      response_summary: 'Stolen card - Pick up',
    };
    expect(fromPayment(answer(201, body))).to.include({
      outcome: 'hard_decline',
      rawCode: '30043',
      rawMessage: 'Stolen card - Pick up',
    });
  });

  rowByRow(
    ACTION_OUTCOMES,
    { capture: 'approved', void: 'approved', refund: 'pending' },
    (op, outcome) => `an accepted (202) ${op} is ${outcome}`,
    (op, outcome) => {
      const result = fromAction(answer(202, { action_id: 'act_1' }), op as 'capture', 'pay_1');
      expect(result).to.include({ outcome, providerReference: op === 'refund' ? 'act_1' : 'pay_1' });
    },
  );

  it('a bodiless 401, a 403 and a 422 are processing_error; a 5xx is unknown', () => {
    expect(fromPayment(answer(401, null))).to.include({ outcome: 'processing_error', rawCode: 'http_401' });
    expect(fromAction(answer(403, { error_type: 'action_not_allowed' }), 'capture', 'pay_1')).to.include({
      outcome: 'processing_error',
      rawCode: 'action_not_allowed',
    });
    expect(fromPayment(answer(422, { error_type: 'request_invalid', error_codes: ['amount_invalid'] }))).to.include({
      outcome: 'processing_error',
      rawCode: 'amount_invalid',
    });
    expect(fromPayment(answer(502, null))).to.include({ outcome: 'unknown', rawCode: 'http_502' });
  });
});

describe('checkout: a payment read after it was pending (settlement without a webhook)', () => {
  const read = (status: string, code: string | undefined, summary: string | undefined) =>
    fromPayment(answer(200, { id: 'pay_1', status, response_code: code, response_summary: summary }));

  // Settlement calls a read lapsed when rawCode or rawMessage is the provider's word for it (activities/transactions/
  // settlement.ts): Checkout.com's Expired/Canceled must reach it even when the payment carries a response code.
  it('a payment that lapsed (Expired, Canceled) says so in rawMessage and keeps its response code as rawCode', () => {
    expect(read('Expired', '10000', 'Approved')).to.include({
      outcome: 'soft_decline',
      rawCode: '10000',
      rawMessage: 'Expired',
    });
    expect(read('Canceled', undefined, undefined)).to.include({
      outcome: 'soft_decline',
      rawCode: 'Canceled',
      rawMessage: 'Canceled',
    });
  });

  it('a payment declined after pending keeps the provider response code as its failure code', () => {
    expect(read('Declined', '20051', 'Insufficient Funds')).to.include({
      outcome: 'soft_decline',
      rawCode: '20051',
      rawMessage: 'Insufficient Funds',
    });
    expect(read('Declined', '30043', 'Stolen card - Pick up').outcome).to.equal('hard_decline');
  });
});

describe('checkout webhooks', () => {
  rowByRow<InboundWebhook['type']>(
    EVENT_TYPES,
    {
      payment_captured: 'payment.succeeded',
      payment_paid: 'payment.succeeded',
      payment_declined: 'payment.failed',
      payment_capture_declined: 'payment.failed',
      payment_canceled: 'payment.failed',
      payment_expired: 'payment.expired',
      payment_refunded: 'refund.succeeded',
      payment_refund_declined: 'refund.failed',
      dispute_received: 'dispute.opened',
      dispute_evidence_required: 'dispute.updated',
      dispute_evidence_submitted: 'dispute.updated',
      dispute_won: 'dispute.closed',
      dispute_lost: 'dispute.closed',
      dispute_accepted: 'dispute.closed',
      dispute_canceled: 'dispute.closed',
    },
    (type, ours) => `${type} is ${ours}`,
    (type, ours) => {
      const secret = 'cko-secret-0123456789';
      const body = JSON.stringify({
        id: 'evt_1',
        type,
        created_on: '2026-11-21T10:00:00Z',
        data: { id: 'pay_1', action_id: 'act_1', payment_id: 'pay_1', amount: 100, reference: 'tx_1' },
      });
      const signature = createHmac('sha256', secret).update(body).digest('hex');
      expect(
        parseWebhook({ headers: { 'Cko-Signature': signature }, rawBody: body, webhookSecret: secret }).type,
      ).to.equal(ours);
    },
  );

  const secret = 'cko-secret-0123456789';
  const body = JSON.stringify({
    id: 'evt_2',
    type: 'payment_refunded',
    created_on: '2026-11-21T10:00:00Z',
    data: { id: 'pay_1', action_id: 'act_9', amount: 500, reference: 'ref_1' },
  });
  const sign = (raw: string, key = secret) => ({
    'cko-signature': createHmac('sha256', key).update(raw).digest('hex'),
  });

  it('names the refund action for refund events', () => {
    expect(parseWebhook({ headers: sign(body), rawBody: body, webhookSecret: secret })).to.include({
      eventId: 'evt_2',
      type: 'refund.succeeded',
      providerReference: 'act_9',
      amount: 500,
      reference: 'ref_1',
    });
  });

  it('refuses a tampered body, a wrong key, a missing header or no secret', () => {
    expect(() =>
      parseWebhook({ headers: sign(body), rawBody: body.replace('500', '5000'), webhookSecret: secret }),
    ).to.throw(InvalidWebhookError);
    expect(() =>
      parseWebhook({ headers: sign(body, 'another-secret-value'), rawBody: body, webhookSecret: secret }),
    ).to.throw(InvalidWebhookError);
    expect(() => parseWebhook({ headers: {}, rawBody: body, webhookSecret: secret })).to.throw(InvalidWebhookError);
    expect(() => parseWebhook({ headers: sign(body), rawBody: body, webhookSecret: null })).to.throw(
      InvalidWebhookError,
    );
  });

  it('signals an event it does not act on with UnhandledWebhookEventError', () => {
    const other = body.replace('payment_refunded', 'payment_approved');
    expect(() => parseWebhook({ headers: sign(other), rawBody: other, webhookSecret: secret })).to.throw(
      UnhandledWebhookEventError,
    );
  });
});
