/**
 * A pending payment the provider declines later says why (domain/transactions/transactions.late-declines.ts): the
 * webhook parsers read the provider's decline code and message from payment.failed as their adapters read a
 * synchronous decline, and only a safe code and a scrubbed message are kept.
 */
import { createHmac } from 'node:crypto';
import { expect } from 'chai';
import { parseWebhook as parseCheckout } from '../../domain/connectors/checkout/webhook';
import { parseWebhook as parseProviderA } from '../../domain/connectors/provider_a/webhook';
import { parseWebhook as parseProviderB } from '../../domain/connectors/provider_b/webhook';
import { parseWebhook as parseProviderC } from '../../domain/connectors/provider_c/webhook';
import { safeProviderCode, safeProviderMessage } from '../../domain/transactions/transactions.late-declines';
import { standardWebhookHeaders } from '../../sandbox/providers/provider-a-shapes';
import { signatureHeaders } from '../../sandbox/providers/provider-c-shapes';

describe('late declines: only a safe provider code is kept', () => {
  it('keeps the providers’ decline codes as they are', () => {
    for (const code of ['do_not_honor', 'cc_rejected_other_reason', '20005', '12', 'CVC Declined', 'E301'])
      expect(safeProviderCode(code)).to.equal(code);
  });

  it('keeps no card number, no document number (bare or punctuated), nothing long or odd', () => {
    for (const code of [
      '4242424242424242',
      '4242-4242-4242-4242',
      '12345678909',
      '123.456.789-09',
      '12.345.678/0001-95',
      'x'.repeat(65),
      'decline <b>',
      '',
      '   ',
      null,
      undefined,
    ])
      expect(safeProviderCode(code), String(code)).to.equal(null);
  });

  it('scrubs the message: no card number, no CPF/CNPJ, bounded; empty is none', () => {
    const message = safeProviderMessage('Declined for card 4242 4242 4242 4242, holder CPF 123.456.789-09 cvc 123')!;
    expect(message).to.not.match(/4242 4242|123\.456\.789|cvc 123/);
    expect(message).to.match(/^Declined for card/);
    expect(safeProviderMessage('x'.repeat(1000))!.length).to.be.at.most(300);
    expect(safeProviderMessage('  ')).to.equal(null);
    expect(safeProviderMessage(null)).to.equal(null);
  });
});

describe('late declines: the webhook parsers read the provider’s decline from payment.failed', () => {
  it('provider_a (Stripe): last_payment_error.decline_code, else its code, and the message', () => {
    const secret = `whsec_${Buffer.from('a-secret-of-at-least-24-bytes!!').toString('base64')}`;
    const parse = (type: string, lastError: Record<string, unknown> | null) => {
      const body = JSON.stringify({
        id: 'evt_1',
        type,
        created: 1_700_000_000,
        data: { object: { id: 'pi_1', amount: 900, last_payment_error: lastError } },
      });
      return parseProviderA({
        headers: standardWebhookHeaders('evt_1', secret, body),
        rawBody: body,
        webhookSecret: secret,
      });
    };
    const error = {
      code: 'card_declined',
      decline_code: 'insufficient_funds',
      message: 'Your card has insufficient funds.',
    };
    expect(parse('payment_intent.payment_failed', error).decline).to.deep.equal({
      code: 'insufficient_funds',
      message: 'Your card has insufficient funds.',
    });
    expect(parse('payment_intent.payment_failed', { code: 'expired_card', message: 'Expired.' }).decline).to.deep.equal(
      { code: 'expired_card', message: 'Expired.' },
    );
    expect(parse('payment_intent.succeeded', null).decline).to.equal(null);
  });

  it('provider_b (Adyen): a refused AUTHORISATION’s reason', () => {
    const secret = JSON.stringify({ username: 'hook', password: 'hook-pass' });
    const headers = { authorization: `Basic ${Buffer.from('hook:hook-pass').toString('base64')}` };
    const parse = (success: string, reason: string) => {
      const item = {
        amount: { value: 1200, currency: 'BRL' },
        eventCode: 'AUTHORISATION',
        merchantAccountCode: 'Acme',
        merchantReference: 'tx_1',
        pspReference: 'PSP1',
        reason,
        success,
      };
      const body = JSON.stringify({ live: 'false', notificationItems: [{ NotificationRequestItem: item }] });
      return parseProviderB({ headers, rawBody: body, webhookSecret: secret });
    };
    expect(parse('false', 'Not enough balance').decline).to.deep.equal({
      code: 'Not enough balance',
      message: 'Not enough balance',
    });
    expect(parse('true', '').decline).to.equal(null);
  });

  it('provider_c (Mercado Pago): a rejected payment’s status_detail', () => {
    const secret = 'mp-webhook-secret-0123456789';
    const parse = (status: string, detail: string) => {
      const body = JSON.stringify({
        id: 1234,
        type: 'payment',
        action: 'payment.updated',
        data: { id: '555', status, status_detail: detail, transaction_amount: 10.5, currency_id: 'BRL' },
      });
      return parseProviderC({ headers: signatureHeaders('555', body, secret), rawBody: body, webhookSecret: secret });
    };
    expect(parse('rejected', 'cc_rejected_insufficient_amount').decline).to.deep.equal({
      code: 'cc_rejected_insufficient_amount',
      message: 'rejected',
    });
    expect(parse('approved', 'accredited').decline).to.equal(null);
  });

  it('checkout (Checkout.com): a declined payment’s response_code and summary; a canceled one has none', () => {
    const secret = 'cko-secret-0123456789';
    const parse = (type: string) => {
      const body = JSON.stringify({
        id: 'evt_2',
        type,
        data: { id: 'pay_1', amount: 500, response_code: '20051', response_summary: 'Insufficient Funds' },
      });
      const signature = createHmac('sha256', secret).update(body).digest('hex');
      return parseCheckout({ headers: { 'cko-signature': signature }, rawBody: body, webhookSecret: secret });
    };
    expect(parse('payment_declined').decline).to.deep.equal({ code: '20051', message: 'Insufficient Funds' });
    expect(parse('payment_canceled')).to.include({ type: 'payment.failed', decline: null });
    expect(parse('payment_captured').decline).to.equal(null);
  });
});
