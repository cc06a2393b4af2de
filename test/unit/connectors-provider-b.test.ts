import { expect } from 'chai';
import {
  InvalidWebhookError,
  type InboundWebhook,
  type Outcome,
  UnhandledWebhookEventError,
} from '../../domain/connectors/connector';
import {
  EVENT_CODES,
  fromModification,
  fromPayment,
  MODIFICATION_OUTCOMES,
  REFUSAL_REASONS,
  RESULT_CODES,
  webhookType,
} from '../../domain/connectors/provider_b/transformers';
import { notificationHmac, parseWebhook } from '../../domain/connectors/provider_b/webhook';
import { notificationHmac as sandboxHmac } from '../../sandbox/providers/provider-b-notifications';
import { answer, rowByRow } from '../helpers/rows';

describe('provider_b transformers: resultCode and refusalReasonCode → outcome', () => {
  rowByRow(
    RESULT_CODES,
    {
      Authorised: 'approved',
      Pending: 'pending',
      Received: 'pending',
      PresentToShopper: 'pending',
      Error: 'processing_error',
      Cancelled: 'soft_decline',
      RedirectShopper: 'soft_decline',
      IdentifyShopper: 'soft_decline',
      ChallengeShopper: 'soft_decline',
      AuthenticationNotRequired: 'processing_error',
      AuthenticationFinished: 'processing_error',
      SomethingNew: 'processing_error',
    },
    (code, outcome) => `resultCode ${code} is ${outcome}`,
    (code, outcome) => {
      expect(fromPayment(answer(200, { pspReference: 'PSP1', resultCode: code }))).to.include({
        outcome,
        rawCode: code,
        providerReference: 'PSP1',
      });
    },
  );

  const refusals: Record<string, Outcome> = {
    2: 'soft_decline',
    3: 'soft_decline',
    4: 'processing_error',
    5: 'hard_decline',
    6: 'hard_decline',
    7: 'soft_decline',
    8: 'hard_decline',
    9: 'soft_decline',
    10: 'soft_decline',
    11: 'soft_decline',
    12: 'soft_decline',
    14: 'hard_decline',
    15: 'soft_decline',
    16: 'soft_decline',
    17: 'soft_decline',
    18: 'hard_decline',
    20: 'hard_decline',
    21: 'processing_error',
    22: 'hard_decline',
    23: 'hard_decline',
    24: 'soft_decline',
    25: 'hard_decline',
    26: 'hard_decline',
    27: 'soft_decline',
    28: 'soft_decline',
    29: 'soft_decline',
    31: 'hard_decline',
    32: 'soft_decline',
    33: 'soft_decline',
    34: 'hard_decline',
    35: 'hard_decline',
    36: 'soft_decline',
    38: 'soft_decline',
    42: 'soft_decline',
    99: 'soft_decline',
  };
  rowByRow(
    REFUSAL_REASONS,
    refusals,
    (code, outcome) => `Refused with refusalReasonCode ${code} is ${outcome}`,
    (code, outcome) => {
      const body = {
        pspReference: 'PSP1',
        resultCode: 'Refused',
        refusalReason: 'Reason',
        refusalReasonCode: code,
        additionalData: { refusalReasonRaw: '05 : Do not honor' },
      };
      expect(fromPayment(answer(200, body))).to.include({
        outcome,
        rawCode: code,
        rawMessage: 'Reason (05 : Do not honor)',
      });
    },
  );

  it('turns pix and boleto actions into payment instructions', () => {
    const pix = fromPayment(
      answer(200, {
        pspReference: 'P',
        resultCode: 'Pending',
        action: {
          type: 'qrCode',
          paymentMethodType: 'pix',
          qrCodeData: '000201…',
          url: 'https://qr',
          expiresAt: '2030-01-01T00:00:00Z',
        },
      }),
    );
    expect(pix.paymentInstructions).to.deep.equal({
      type: 'pix',
      qr_code_text: '000201…',
      qr_code_url: 'https://qr',
      expires_at: '2030-01-01T00:00:00Z',
    });
    const boleto = fromPayment(
      answer(200, {
        pspReference: 'P',
        resultCode: 'PresentToShopper',
        action: { type: 'voucher', reference: '2379…', downloadUrl: 'https://pdf', expiresAt: '2030-01-03T00:00:00Z' },
      }),
    );
    expect(boleto.paymentInstructions).to.deep.equal({
      type: 'boleto',
      barcode: '2379…',
      boleto_url: 'https://pdf',
      expires_at: '2030-01-03T00:00:00Z',
    });
  });

  rowByRow(
    MODIFICATION_OUTCOMES,
    { capture: 'approved', void: 'approved', refund: 'pending' },
    (operation, outcome) => `a "received" ${operation} is ${outcome}`,
    (operation, outcome) => {
      const result = fromModification(
        answer(201, { paymentPspReference: 'PAY', pspReference: 'MOD', status: 'received' }),
        operation as 'capture',
      );
      expect(result).to.include({ outcome, providerReference: operation === 'refund' ? 'MOD' : 'PAY' });
    },
  );

  it('5xx is unknown (the provider may have charged); 401/403/422 are processing_error with the errorCode', () => {
    expect(fromPayment(answer(500, { status: 500, errorCode: '000' }))).to.include({
      outcome: 'unknown',
      rawCode: 'http_500',
    });
    expect(fromPayment(answer(401, { status: 401, errorCode: '000' }))).to.include({
      outcome: 'processing_error',
      rawCode: '000',
    });
    expect(fromPayment(answer(403, { status: 403, errorCode: '901' }))).to.include({
      outcome: 'processing_error',
      rawCode: '901',
    });
    expect(fromModification(answer(422, { status: 422, errorCode: '167' }), 'capture')).to.include({
      outcome: 'processing_error',
      rawCode: '167',
    });
  });
});

describe('provider_b webhooks', () => {
  rowByRow<InboundWebhook['type']>(
    EVENT_CODES,
    {
      'AUTHORISATION:true': 'payment.succeeded',
      'AUTHORISATION:false': 'payment.failed',
      'OFFER_CLOSED:*': 'payment.expired',
      'REFUND:true': 'refund.succeeded',
      'REFUND:false': 'refund.failed',
      'REFUND_FAILED:*': 'refund.failed',
      'REFUNDED_REVERSED:*': 'refund.failed',
      'CAPTURE:true': 'capture.succeeded',
      'CAPTURE:false': 'capture.failed',
      'CAPTURE_FAILED:*': 'capture.failed',
      'CANCELLATION:true': 'void.succeeded',
      'CANCELLATION:false': 'void.failed',
      'NOTIFICATION_OF_CHARGEBACK:*': 'dispute.opened',
      'REQUEST_FOR_INFORMATION:*': 'dispute.opened',
      'CHARGEBACK:*': 'dispute.updated',
      'PREARBITRATION_WON:*': 'dispute.closed',
      'PREARBITRATION_LOST:*': 'dispute.closed',
      'CHARGEBACK_REVERSED:*': 'dispute.closed',
      'SECOND_CHARGEBACK:*': 'dispute.closed',
    },
    (key, ours) => `eventCode ${key} is ${ours}`,
    (key, ours) => {
      const [code, success] = key.split(':');
      expect(webhookType(code, success === '*' ? 'true' : success)).to.equal(ours);
    },
  );

  const hmacKey = '44782DEF547AAA06C910C43932B1EB0C71FC68D9D0C057550C48EC2ACF6BA056';
  const secret = JSON.stringify({ username: 'hook', password: 'hook-pass', hmac_key: hmacKey });
  const basic = (user: string, pass: string) => ({
    authorization: `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`,
  });
  const item: Record<string, unknown> = {
    amount: { value: 1200, currency: 'BRL' },
    eventCode: 'AUTHORISATION',
    eventDate: '2026-11-21T10:00:00.000Z',
    merchantAccountCode: 'Acme',
    merchantReference: 'tx_1',
    pspReference: 'PSP1',
    success: 'true',
  };
  const signed = (fields: Record<string, unknown>) =>
    JSON.stringify({
      live: 'false',
      notificationItems: [
        {
          NotificationRequestItem: { ...fields, additionalData: { hmacSignature: notificationHmac(fields, hmacKey) } },
        },
      ],
    });

  it('signs notifications exactly as the sandbox does', () => {
    expect(notificationHmac(item, hmacKey)).to.equal(sandboxHmac(item, hmacKey));
  });

  it('parses an authenticated, correctly signed notification', () => {
    const event = parseWebhook({ headers: basic('hook', 'hook-pass'), rawBody: signed(item), webhookSecret: secret });
    expect(event).to.include({
      eventId: 'PSP1:AUTHORISATION:true',
      type: 'payment.succeeded',
      providerReference: 'PSP1',
      reference: 'tx_1',
      amount: 1200,
    });
  });

  it('refuses wrong Basic credentials, a wrong HMAC, batched items or no secret', () => {
    expect(() =>
      parseWebhook({ headers: basic('hook', 'nope'), rawBody: signed(item), webhookSecret: secret }),
    ).to.throw(InvalidWebhookError);
    expect(() => parseWebhook({ headers: {}, rawBody: signed(item), webhookSecret: secret })).to.throw(
      InvalidWebhookError,
    );
    const forged = signed(item).replace('"value":1200', '"value":1');
    expect(() =>
      parseWebhook({ headers: basic('hook', 'hook-pass'), rawBody: forged, webhookSecret: secret }),
    ).to.throw(InvalidWebhookError, /HMAC/);
    const batch = JSON.stringify({
      notificationItems: [{ NotificationRequestItem: item }, { NotificationRequestItem: item }],
    });
    expect(() => parseWebhook({ headers: basic('hook', 'hook-pass'), rawBody: batch, webhookSecret: secret })).to.throw(
      InvalidWebhookError,
    );
    expect(() =>
      parseWebhook({ headers: basic('hook', 'hook-pass'), rawBody: signed(item), webhookSecret: null }),
    ).to.throw(InvalidWebhookError);
  });

  it('checks Basic only when the secret has no hmac_key (the {username, password} format)', () => {
    const basicOnly = JSON.stringify({ username: 'hook', password: 'hook-pass' });
    const unsigned = JSON.stringify({ notificationItems: [{ NotificationRequestItem: item }] });
    expect(
      parseWebhook({ headers: basic('hook', 'hook-pass'), rawBody: unsigned, webhookSecret: basicOnly }).type,
    ).to.equal('payment.succeeded');
  });

  it('never quotes a malformed secret in its error', () => {
    expect(() => parseWebhook({ headers: {}, rawBody: '{}', webhookSecret: 'not-json-s3cr3t' }))
      .to.throw(InvalidWebhookError)
      .with.property('message')
      .that.does.not.include('s3cr3t');
  });

  it('signals an authenticated event it does not act on with UnhandledWebhookEventError', () => {
    const report = { ...item, eventCode: 'REPORT_AVAILABLE' };
    expect(() =>
      parseWebhook({ headers: basic('hook', 'hook-pass'), rawBody: signed(report), webhookSecret: secret }),
    ).to.throw(UnhandledWebhookEventError);
  });
});
