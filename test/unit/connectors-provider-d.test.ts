import { expect } from 'chai';
import {
  InvalidWebhookError,
  type InboundWebhook,
  type Outcome,
  UnhandledWebhookEventError,
} from '../../domain/connectors/connector';
import { refIdFor } from '../../domain/connectors/provider_d/adapter';
import {
  EVENT_TYPES,
  fromDetails,
  fromTransaction,
  REASON_CODES,
  RESPONSE_CODES,
  webhookType,
} from '../../domain/connectors/provider_d/transformers';
import { parseWebhook } from '../../domain/connectors/provider_d/webhook';
import { anetSignature } from '../../sandbox/providers/provider-d-shapes';
import { answer, rowByRow } from '../helpers/rows';

const transaction = (responseCode: string, reason: string, transId = '6000000001') =>
  answer(200, {
    transactionResponse: {
      responseCode,
      transId,
      ...(responseCode === '1'
        ? { messages: [{ code: reason, description: 'ok' }] }
        : { errors: [{ errorCode: reason, errorText: 'text' }] }),
    },
    messages: { resultCode: responseCode === '1' ? 'Ok' : 'Error', message: [] },
  });

describe('provider_d transformers: responseCode and reason code → outcome', () => {
  rowByRow(
    RESPONSE_CODES,
    { 1: 'approved', 2: 'soft_decline', 3: 'processing_error', 4: 'pending', 9: 'processing_error' },
    (code, outcome) => `responseCode ${code} with an unlisted reason is ${outcome}`,
    (code, outcome) => {
      expect(fromTransaction(transaction(code, '9999')).outcome).to.equal(outcome);
    },
  );

  const reasons: Record<string, Outcome> = {
    2: 'soft_decline',
    3: 'soft_decline',
    4: 'hard_decline',
    5: 'processing_error',
    6: 'hard_decline',
    7: 'hard_decline',
    8: 'hard_decline',
    11: 'unknown',
    16: 'processing_error',
    17: 'soft_decline',
    19: 'processing_error',
    20: 'processing_error',
    21: 'processing_error',
    22: 'processing_error',
    23: 'processing_error',
    27: 'soft_decline',
    28: 'soft_decline',
    37: 'hard_decline',
    44: 'soft_decline',
    45: 'soft_decline',
    47: 'processing_error',
    54: 'processing_error',
    55: 'processing_error',
    57: 'processing_error',
    58: 'processing_error',
    59: 'processing_error',
    60: 'processing_error',
    61: 'processing_error',
    65: 'soft_decline',
    127: 'soft_decline',
    141: 'soft_decline',
    145: 'soft_decline',
    165: 'soft_decline',
    250: 'hard_decline',
    251: 'hard_decline',
    252: 'pending',
    253: 'pending',
    254: 'hard_decline',
    310: 'processing_error',
    311: 'processing_error',
  };
  rowByRow(
    REASON_CODES,
    reasons,
    (reason, outcome) => `a declined or failed transaction with reason ${reason} is ${outcome}`,
    (reason, outcome) => {
      expect(fromTransaction(transaction('2', reason))).to.include({ outcome, rawCode: reason, rawMessage: 'text' });
    },
  );

  it('an approved transaction is approved whatever its message code, with transId as reference', () => {
    expect(fromTransaction(transaction('1', '1'))).to.include({ outcome: 'approved', providerReference: '6000000001' });
  });

  it('transId "0" (never created) is no provider reference', () => {
    expect(fromTransaction(transaction('3', '6', '0')).providerReference).to.equal(null);
  });

  it('API-level errors (authentication, schema) and 5xx are processing_error', () => {
    expect(
      fromTransaction(
        answer(200, {
          messages: { resultCode: 'Error', message: [{ code: 'E00007', text: 'User authentication failed' }] },
        }),
      ),
    ).to.include({ outcome: 'processing_error', rawCode: 'E00007' });
    expect(fromTransaction(answer(503, null))).to.include({ outcome: 'unknown', rawCode: 'http_503' });
  });

  it('reads the masked card number for refunds from transaction details', () => {
    expect(
      fromDetails(
        answer(200, {
          transaction: { payment: { creditCard: { cardNumber: 'XXXX1111' } } },
          messages: { resultCode: 'Ok' },
        }),
      ),
    ).to.deep.equal({ cardNumber: 'XXXX1111' });
    expect(
      fromDetails(answer(200, { messages: { resultCode: 'Error', message: [{ code: 'E00040' }] } })),
    ).to.have.property('failure');
  });

  it('keeps refIds within 20 characters, stable for the same key', () => {
    expect(refIdFor('short-key')).to.equal('short-key');
    const long = 'charge-wf-0123456789abcdef-attempt-2';
    expect(refIdFor(long)).to.have.length(20).and.equal(refIdFor(long));
    expect(refIdFor(long)).to.not.equal(refIdFor(`${long}x`));
  });
});

describe('provider_d webhooks', () => {
  rowByRow<InboundWebhook['type']>(
    EVENT_TYPES,
    {
      'net.authorize.payment.authcapture.created': 'payment.succeeded',
      'net.authorize.payment.capture.created': 'payment.succeeded',
      'net.authorize.payment.priorAuthCapture.created': 'payment.succeeded',
      'net.authorize.payment.fraud.declined': 'payment.failed',
      'net.authorize.payment.void.created': 'payment.expired',
    },
    (type, ours) => `${type} is ${ours}`,
    (type, ours) => expect(webhookType(type, {})).to.equal(ours),
  );

  it('refund.created follows the payload responseCode', () => {
    expect(webhookType('net.authorize.payment.refund.created', { responseCode: 1 })).to.equal('refund.succeeded');
    expect(webhookType('net.authorize.payment.refund.created', { responseCode: 2 })).to.equal('refund.failed');
  });

  const key = 'AB'.repeat(64);
  const body = JSON.stringify({
    notificationId: 'n-1',
    eventType: 'net.authorize.payment.authcapture.created',
    eventDate: '2026-11-21T10:00:00Z',
    payload: { id: '600', authAmount: 12.5, merchantReferenceId: 'tx_1', responseCode: 1 },
  });

  it('parses a correctly signed webhook (signature compared case-insensitively)', () => {
    const headers = { 'X-ANET-Signature': anetSignature(body, key).toLowerCase() };
    expect(parseWebhook({ headers, rawBody: body, webhookSecret: key })).to.include({
      eventId: 'n-1',
      type: 'payment.succeeded',
      providerReference: '600',
      reference: 'tx_1',
      amount: 1250,
    });
  });

  it('refuses a tampered body, a wrong key, a missing header or no secret', () => {
    const headers = { 'x-anet-signature': anetSignature(body, key) };
    expect(() => parseWebhook({ headers, rawBody: body.replace('12.5', '99.5'), webhookSecret: key })).to.throw(
      InvalidWebhookError,
    );
    expect(() => parseWebhook({ headers, rawBody: body, webhookSecret: 'CD'.repeat(64) })).to.throw(
      InvalidWebhookError,
    );
    expect(() => parseWebhook({ headers: {}, rawBody: body, webhookSecret: key })).to.throw(InvalidWebhookError);
    expect(() => parseWebhook({ headers, rawBody: body, webhookSecret: null })).to.throw(InvalidWebhookError);
  });

  it('signals an event it does not act on with UnhandledWebhookEventError', () => {
    const other = body.replace('authcapture.created', 'authorization.created');
    expect(() =>
      parseWebhook({ headers: { 'x-anet-signature': anetSignature(other, key) }, rawBody: other, webhookSecret: key }),
    ).to.throw(UnhandledWebhookEventError);
  });
});
