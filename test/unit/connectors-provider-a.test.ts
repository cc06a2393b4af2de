import { expect } from 'chai';
import {
  InvalidWebhookError,
  type InboundWebhook,
  type Outcome,
  UnhandledWebhookEventError,
} from '../../domain/connectors/connector';
import {
  DECLINE_CODES,
  EVENT_TYPES,
  fromIntent,
  fromModification,
  fromRefund,
  INTENT_STATUSES,
  REFUND_STATUSES,
  webhookType,
} from '../../domain/connectors/provider_a/transformers';
import { parseWebhook } from '../../domain/connectors/provider_a/webhook';
import { standardWebhookHeaders } from '../../sandbox/providers/provider-a-shapes';
import { answer, rowByRow } from '../helpers/rows';

describe('provider_a transformers: decline_code → outcome', () => {
  const expected: Record<string, Outcome> = {
    generic_decline: 'soft_decline',
    do_not_honor: 'soft_decline',
    insufficient_funds: 'soft_decline',
    card_velocity_exceeded: 'soft_decline',
    try_again_later: 'soft_decline',
    issuer_not_available: 'soft_decline',
    authentication_required: 'soft_decline',
    approve_with_id: 'soft_decline',
    call_issuer: 'soft_decline',
    incorrect_cvc: 'soft_decline',
    card_not_supported: 'soft_decline',
    currency_not_supported: 'soft_decline',
    stolen_card: 'hard_decline',
    lost_card: 'hard_decline',
    pickup_card: 'hard_decline',
    restricted_card: 'hard_decline',
    expired_card: 'hard_decline',
    incorrect_number: 'hard_decline',
    invalid_number: 'hard_decline',
    invalid_account: 'hard_decline',
    fraudulent: 'hard_decline',
    merchant_blacklist: 'hard_decline',
    security_violation: 'hard_decline',
    processing_error: 'processing_error',
    payment_intent_authentication_failure: 'hard_decline',
    a_code_added_next_year: 'soft_decline',
  };
  rowByRow(
    DECLINE_CODES,
    expected,
    (code, outcome) => `a 402 card_error with decline_code ${code} is ${outcome}, raw code kept`,
    (code, outcome) => {
      const result = fromIntent(
        answer(402, {
          error: {
            type: 'card_error',
            code: 'card_declined',
            decline_code: code,
            message: 'Declined',
            payment_intent: { id: 'pi_1' },
          },
        }),
        'payment_intent',
      );
      expect(result).to.include({ outcome, rawCode: code, providerReference: 'pi_1', rawMessage: 'Declined' });
    },
  );

  it('falls back to the error code when there is no decline_code (incorrect_number)', () => {
    expect(
      fromIntent(
        answer(402, { error: { type: 'card_error', code: 'incorrect_number', setup_intent: { id: 'seti_1' } } }),
        'setup_intent',
      ),
    ).to.include({ outcome: 'hard_decline', rawCode: 'incorrect_number', providerReference: 'seti_1' });
  });
});

describe('provider_a transformers: intent and refund statuses', () => {
  rowByRow(
    INTENT_STATUSES,
    {
      succeeded: 'approved',
      requires_capture: 'approved',
      processing: 'pending',
      requires_payment_method: 'soft_decline',
      requires_action: 'soft_decline',
      requires_confirmation: 'processing_error',
      canceled: 'soft_decline',
    },
    (status, outcome) => `an intent in status ${status} is ${outcome}`,
    (status, outcome) => {
      expect(fromIntent(answer(200, { id: 'pi_1', status }), 'payment_intent')).to.include({
        outcome,
        providerReference: 'pi_1',
        rawCode: status,
      });
    },
  );

  it('a 200 intent carrying a last_payment_error is classified by its decline code', () => {
    const body = {
      id: 'pi_1',
      status: 'requires_payment_method',
      last_payment_error: { code: 'card_declined', decline_code: 'stolen_card' },
    };
    expect(fromIntent(answer(200, body), 'payment_intent')).to.include({
      outcome: 'hard_decline',
      rawCode: 'stolen_card',
    });
  });

  it('reads the network transaction id from the expanded latest charge', () => {
    const body = {
      id: 'pi_1',
      status: 'succeeded',
      latest_charge: { payment_method_details: { card: { network_transaction_id: '123456789012345' } } },
    };
    expect(fromIntent(answer(200, body), 'payment_intent').networkTransactionId).to.equal('123456789012345');
  });

  rowByRow(
    REFUND_STATUSES,
    {
      succeeded: 'approved',
      pending: 'pending',
      requires_action: 'pending',
      failed: 'hard_decline',
      canceled: 'hard_decline',
    },
    (status, outcome) => `a refund in status ${status} is ${outcome}`,
    (status, outcome) => {
      expect(fromRefund(answer(200, { id: 're_1', status }))).to.include({ outcome, providerReference: 're_1' });
    },
  );

  it('capture and cancel are approved only in the expected status', () => {
    expect(fromModification(answer(200, { id: 'pi_1', status: 'succeeded' }), 'succeeded').outcome).to.equal(
      'approved',
    );
    expect(fromModification(answer(200, { id: 'pi_1', status: 'canceled' }), 'canceled').outcome).to.equal('approved');
    expect(fromModification(answer(200, { id: 'pi_1', status: 'requires_capture' }), 'succeeded').outcome).to.equal(
      'processing_error',
    );
  });

  it("never keeps the provider's message for a refused key (it quotes part of the key)", () => {
    const refused = answer(401, {
      error: { type: 'invalid_request_error', message: 'Invalid API Key provided: sk_test_****1234' },
    });
    expect(fromIntent(refused, 'payment_intent').rawMessage).to.equal('The provider rejected the credentials');
  });

  it('5xx is unknown (the provider may have charged); 401/400/409 errors are processing_error with the provider code', () => {
    expect(fromIntent(answer(500, { error: { type: 'api_error' } }), 'payment_intent')).to.include({
      outcome: 'unknown',
      rawCode: 'http_500',
    });
    expect(
      fromIntent(
        answer(401, { error: { type: 'invalid_request_error', message: 'Invalid API Key' } }),
        'payment_intent',
      ),
    ).to.include({ outcome: 'processing_error', rawCode: 'invalid_request_error' });
    expect(fromIntent(answer(400, { error: { type: 'idempotency_error' } }), 'payment_intent')).to.include({
      outcome: 'processing_error',
      rawCode: 'idempotency_error',
    });
    expect(fromRefund(answer(400, { error: { type: 'invalid_request_error', code: 'amount_too_large' } }))).to.include({
      outcome: 'processing_error',
      rawCode: 'amount_too_large',
    });
  });
});

describe('provider_a webhooks', () => {
  rowByRow<InboundWebhook['type']>(
    EVENT_TYPES,
    {
      'payment_intent.succeeded': 'payment.succeeded',
      'payment_intent.payment_failed': 'payment.failed',
      'payment_intent.canceled': 'payment.expired',
      'refund.failed': 'refund.failed',
      'charge.dispute.created': 'dispute.opened',
      'charge.dispute.updated': 'dispute.updated',
      'charge.dispute.funds_withdrawn': 'dispute.updated',
      'charge.dispute.closed': 'dispute.closed',
    },
    (type, ours) => `event ${type} is ${ours}`,
    (type, ours) => expect(webhookType(type, {})).to.equal(ours),
  );

  it('refund.updated follows the refund status', () => {
    expect(webhookType('refund.updated', { status: 'succeeded' })).to.equal('refund.succeeded');
    expect(webhookType('refund.updated', { status: 'failed' })).to.equal('refund.failed');
    expect(webhookType('refund.updated', { status: 'pending' })).to.equal(null);
  });

  it('payment_intent.amount_capturable_updated is the approval of an uncaptured payment while the intent requires_capture', () => {
    const event = 'payment_intent.amount_capturable_updated';
    expect(webhookType(event, { status: 'requires_capture', amount_capturable: 900 })).to.equal('payment.succeeded');
    // Nothing capturable left (captured or cancelled since): that intent's own event says what happened.
    expect(webhookType(event, { status: 'succeeded', amount_capturable: 0 })).to.equal(null);
    expect(webhookType(event, { status: 'canceled', amount_capturable: 0 })).to.equal(null);
  });

  const secret = `whsec_${Buffer.from('a-secret-of-at-least-24-bytes!!').toString('base64')}`;
  const body = JSON.stringify({
    id: 'evt_1',
    type: 'payment_intent.succeeded',
    created: 1_700_000_000,
    data: { object: { id: 'pi_1', amount: 900, metadata: { reference: 'tx_1' } } },
  });

  it('parses a correctly signed event', () => {
    const event = parseWebhook({
      headers: standardWebhookHeaders('evt_1', secret, body),
      rawBody: body,
      webhookSecret: secret,
    });
    expect(event).to.include({
      eventId: 'evt_1',
      type: 'payment.succeeded',
      providerReference: 'pi_1',
      reference: 'tx_1',
      amount: 900,
    });
  });

  it('accepts any matching signature among several (secret rotation)', () => {
    const headers = standardWebhookHeaders('evt_1', secret, body);
    headers['webhook-signature'] = `v1,AAAA ${headers['webhook-signature']}`;
    expect(() => parseWebhook({ headers, rawBody: body, webhookSecret: secret })).to.not.throw();
  });

  it('refuses a tampered body, a timestamp outside five minutes, missing headers or no secret', () => {
    const headers = standardWebhookHeaders('evt_1', secret, body);
    expect(() => parseWebhook({ headers, rawBody: body.replace('900', '901'), webhookSecret: secret })).to.throw(
      InvalidWebhookError,
    );
    const stale = standardWebhookHeaders('evt_1', secret, body, Math.floor(Date.now() / 1000) - 301);
    expect(() => parseWebhook({ headers: stale, rawBody: body, webhookSecret: secret })).to.throw(
      InvalidWebhookError,
      /tolerance/,
    );
    expect(() => parseWebhook({ headers: {}, rawBody: body, webhookSecret: secret })).to.throw(InvalidWebhookError);
    expect(() => parseWebhook({ headers, rawBody: body, webhookSecret: null })).to.throw(InvalidWebhookError);
  });

  it('signals a correctly signed event it does not act on with UnhandledWebhookEventError', () => {
    const other = JSON.stringify({ id: 'evt_2', type: 'customer.created', data: { object: {} } });
    expect(() =>
      parseWebhook({ headers: standardWebhookHeaders('evt_2', secret, other), rawBody: other, webhookSecret: secret }),
    ).to.throw(UnhandledWebhookEventError);
  });
});
