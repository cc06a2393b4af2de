/**
 * provider_b speaks an Adyen-like Checkout API under /provider_b/v71: HTTP Basic API credentials, merchantAccount in
 * every body, amount {value, currency}, resultCode Authorised/Refused/Pending/PresentToShopper/Error with a numeric
 * refusalReasonCode, pix/boleto `action` objects, redirect 3-D Secure 2 (./provider-b-three-ds.ts), asynchronous
 * modifications ("received") and notifications authenticated with HTTP Basic plus an HMAC in
 * additionalData.hmacSignature.
 */
import { cardFacts, type DeclineReason } from '../cards';
import { capture, refund, voidPayment, type SandboxContext } from '../engine';
import { basic, header, json, read, Router, type Reply, type SandboxRequest } from '../http';
import { idempotent, type Processed } from '../idempotency';
import { randomChars, type Operation, type Payment } from '../store';
import { notificationOf } from './provider-b-notifications';
import { RedirectResults, redirectShopper, threeDsAdditionalData, threeDsRequest } from './provider-b-three-ds';
import {
  authorizeFlow,
  draft,
  ISO_CURRENCY,
  looksInvalid,
  lookupOverride,
  operationOverride,
  paymentFields,
  rejected,
  type ProviderFactory,
} from './common';

const REFUSALS: Record<DeclineReason, { code: string; reason: string; raw: string }> = {
  do_not_honor: { code: '2', reason: 'Refused', raw: '05 : Do not honor' },
  insufficient_funds: { code: '12', reason: 'Not enough balance', raw: '51 : Insufficient funds' },
  stolen_card: { code: '5', reason: 'Blocked Card', raw: '43 : Stolen card, pick up' },
  lost_card: { code: '5', reason: 'Blocked Card', raw: '41 : Lost card, pick up' },
  expired_card: { code: '6', reason: 'Expired Card', raw: '54 : Expired card' },
  invalid_number: { code: '8', reason: 'Invalid Card Number', raw: '14 : Invalid card number' },
  fraud: { code: '20', reason: 'FRAUD', raw: 'FRAUD' },
  authentication_required: {
    code: '38',
    reason: 'Authentication required',
    raw: '1A : Additional customer authentication required',
  },
  authentication_failed: { code: '11', reason: '3D Not Authenticated', raw: '3D Not Authenticated' },
};

const error = (status: number, errorCode: string, message: string, errorType: string): Reply =>
  json(status, { status, errorCode, message, errorType });
const serverError = () => error(500, '000', 'Internal error', 'internal');
const unknownPayment = () => error(422, '167', 'Original pspReference required for this operation', 'validation');

const pspReference = () => randomChars(16, 'upper');

export const providerB: ProviderFactory = (ctx: SandboxContext) => {
  const { store } = ctx;
  const redirectResults = new RedirectResults();

  /**
   * Basic API credentials, then the account: the merchantAccount the body names, or (a request that names none,
   * /payments/details) the one `accountOf` finds, refused with `unknown` when it finds none.
   */
  async function guarded(
    request: SandboxRequest,
    operation: Operation,
    run: (account: string, body: Record<string, unknown>) => Promise<Processed>,
    accountOf?: { find: (body: Record<string, unknown>) => string | null; unknown: () => Reply },
  ) {
    const key = header(request, 'idempotency-key') ?? null;
    const refuse = (processed: Processed) => {
      store.record({
        provider: 'provider_b',
        account: null,
        idempotency_key: key,
        http_status: (processed.reply as Reply).status,
        ...processed.entry,
      });
      return processed.reply;
    };
    const user = basic(request);
    if (!user || user.username.length < 3 || user.password.length < 8 || looksInvalid(user.username, user.password)) {
      return refuse(
        rejected(operation, 'unauthorized', error(401, '000', 'HTTP Status Response - Unauthorized', 'security')),
      );
    }
    const body = request.body;
    if (!body)
      return refuse(
        rejected(operation, 'malformed', error(400, '702', 'Structure of the request is invalid', 'validation')),
      );
    const account = accountOf ? accountOf.find(body) : read.str(body.merchantAccount);
    if (!account && accountOf) return refuse(rejected(operation, 'not_found', accountOf.unknown()));
    if (!account || account.length < 2 || looksInvalid(account)) {
      return refuse(
        rejected(operation, 'invalid_merchant_account', error(403, '901', 'Invalid Merchant Account', 'security')),
      );
    }
    return idempotent(
      store,
      {
        provider: 'provider_b',
        account,
        key,
        request: { path: request.path, body },
        conflict: () => error(422, '704', 'request already processed or in progress', 'validation'),
      },
      () => run(account, body),
    );
  }

  function paymentResponse(payment: Payment): Record<string, unknown> {
    const refusal = payment.declineReason ? REFUSALS[payment.declineReason] : null;
    const base: Record<string, unknown> = {
      pspReference: payment.id,
      merchantReference: payment.reference,
      amount: { value: payment.amount, currency: payment.currency },
      additionalData: {
        ...(payment.cardLast4 ? { cardSummary: payment.cardLast4, paymentMethod: payment.cardBrand } : {}),
        ...(payment.networkTransactionId ? { networkTxReference: payment.networkTransactionId } : {}),
        ...(refusal ? { refusalReasonRaw: refusal.raw } : {}),
        ...threeDsAdditionalData(payment),
      },
    };
    const challenge = redirectShopper(payment);
    if (challenge) return { ...base, ...challenge };
    if (refusal)
      return { ...base, resultCode: 'Refused', refusalReason: refusal.reason, refusalReasonCode: refusal.code };
    if (payment.instructions?.type === 'pix') {
      return {
        ...base,
        resultCode: 'Pending',
        action: {
          type: 'qrCode',
          paymentMethodType: 'pix',
          qrCodeData: payment.instructions.code,
          url: payment.instructions.url,
          expiresAt: payment.instructions.expiresAt,
        },
      };
    }
    if (payment.instructions?.type === 'boleto') {
      return {
        ...base,
        resultCode: 'PresentToShopper',
        action: {
          type: 'voucher',
          paymentMethodType: 'boletobancario',
          reference: payment.instructions.code,
          downloadUrl: payment.instructions.url,
          expiresAt: payment.instructions.expiresAt,
        },
      };
    }
    return { ...base, resultCode: 'Authorised' };
  }

  /**
   * Adyen sends an AUTHORISATION notification for every payment request it decided, whether or not the caller got
   * the answer (approved_no_answer, approved_server_error: the only record of the charge the merchant will see);
   * a pix/boleto or a payment held for review only once it is paid, refused or lapses (finishPending). A request it
   * never processed (the timeout and processing_error scenarios) has no payment and no notification.
   */
  function notifyAuthorisation(processed: Processed): void {
    const id = processed.entry.provider_reference;
    const payment = id ? store.payments.get(id) : undefined;
    if (!payment || payment.state === 'pending' || payment.state === 'requires_action') return;
    ctx.emit({
      provider: 'provider_b',
      account: payment.account,
      type: payment.state === 'declined' ? 'payment.failed' : 'payment.succeeded',
      paymentId: payment.id,
      refundId: null,
      disputeStatus: null,
      reference: payment.reference,
      amount: payment.amount,
      currency: payment.currency,
    });
  }

  /**
   * A capture, cancel or refund, answered `received`. Its forced scenario (control POST /overrides with the
   * operation) plays `slow`, `processing_error` (a 5xx, nothing processed) or `approved_server_error` (processed,
   * answered 5xx).
   */
  function modification(operation: 'capture' | 'void' | 'refund') {
    return (request: SandboxRequest) =>
      guarded(request, operation, async (account, body) => {
        const payment = store.payments.get(request.params.psp);
        if (!payment || payment.account !== account) return rejected(operation, 'not_found', unknownPayment());
        const forced = await operationOverride(ctx, 'provider_b', account, operation);
        if (forced === 'processing_error')
          return rejected(operation, 'processing_error', serverError(), paymentFields(payment));
        const amount = read.int(read.obj(body.amount).value);
        const reference = read.str(body.reference);
        const psp = pspReference();
        const result =
          operation === 'capture'
            ? capture(payment, amount)
            : operation === 'void'
              ? voidPayment(payment)
              : refund(ctx, payment, { id: psp, amount, reference, asynchronous: true });
        if (!result.ok)
          return rejected(
            operation,
            result.error,
            error(422, '000', `Modification not allowed: ${result.error}`, 'validation'),
            paymentFields(payment),
          );
        const value =
          operation === 'capture'
            ? payment.capturedAmount
            : operation === 'refund'
              ? (result.value as { amount: number }).amount
              : payment.amount;
        const reply = json(201, {
          merchantAccount: account,
          paymentPspReference: payment.id,
          pspReference: psp,
          reference,
          status: 'received',
          ...(operation === 'void' ? {} : { amount: { value, currency: payment.currency } }),
        });
        const entry = draft(operation, {
          ...paymentFields(payment, value),
          reference: reference ?? payment.reference,
          provider_reference: operation === 'refund' ? psp : payment.id,
          outcome: operation === 'refund' ? 'pending' : 'approved',
        });
        // Done and kept under the key, but the caller gets a 5xx: the unknown outcome only a notification settles.
        if (forced === 'approved_server_error') return { reply: serverError(), entry, stored: reply };
        return { reply, entry };
      });
  }

  const router = new Router()
    .on('POST', '/v71/payments', (request) =>
      guarded(request, 'authorize', async (account, body) => {
        const amount = read.obj(body.amount);
        const value = read.int(amount.value);
        const currency = read.str(amount.currency);
        if (value === null || value < 0 || !currency || !ISO_CURRENCY.test(currency))
          return rejected('authorize', 'invalid_amount', error(422, '137', 'Invalid amount specified', 'validation'));
        const reference = read.str(body.reference);
        if (!reference)
          return rejected(
            'authorize',
            'missing_reference',
            error(422, '130', "Required field 'reference' is not provided.", 'validation'),
          );
        const pm = read.obj(body.paymentMethod);
        const type = read.str(pm.type);
        let chosen: { method: 'card' | 'pix' | 'boleto'; card: ReturnType<typeof cardFacts> | null };
        if (type === 'scheme') {
          const number = read.str(pm.number);
          const expMonth = read.int(pm.expiryMonth);
          const expYear = read.int(pm.expiryYear);
          if (!number || expMonth === null || expYear === null)
            return rejected('authorize', 'invalid_card', error(422, '101', 'Invalid card number', 'validation'));
          chosen = { method: 'card', card: cardFacts({ number, expMonth, expYear }) };
        } else if (type === 'pix' || type === 'boletobancario') {
          if (currency.toUpperCase() !== 'BRL')
            return rejected(
              'authorize',
              'invalid_currency',
              error(422, '137', 'Invalid amount specified', 'validation'),
            );
          chosen = { method: type === 'pix' ? 'pix' : 'boleto', card: null };
        } else
          return rejected(
            'authorize',
            'unsupported_method',
            error(422, '905', 'Payment details are not supported', 'configuration'),
          );
        if (value === 0 && chosen.method !== 'card')
          return rejected('authorize', 'invalid_amount', error(422, '137', 'Invalid amount specified', 'validation'));
        const manual = read.obj(body.additionalData).manualCapture === 'true';
        const id = pspReference();
        const processed = await authorizeFlow(ctx, {
          operation: value === 0 ? 'verify' : 'authorize',
          serverError,
          input: {
            id,
            provider: 'provider_b',
            account,
            reference,
            amount: value,
            currency: currency.toUpperCase(),
            method: chosen.method,
            card: chosen.card,
            capture: !manual,
            threeDs: chosen.method === 'card' ? threeDsRequest(body, redirectResults.issue(id)) : undefined,
          },
          render: (payment) => json(200, paymentResponse(payment)),
        });
        notifyAuthorisation(processed);
        return processed;
      }),
    )
    // Adyen's technical cancel: cancels, by our merchant reference, an authorisation whose pspReference we never
    // learned. Always `received` (the result is Adyen's TECHNICAL_CANCEL notification, not sent here); an
    // authorised or pending payment under the reference is voided, a captured one cannot be (the money stays taken).
    .on('POST', '/v71/cancels', (request) =>
      guarded(request, 'void', async (account, body) => {
        const forced = lookupOverride(ctx, { provider: 'provider_b', account }, serverError);
        if (forced) return forced;
        const paymentReference = read.str(body.paymentReference);
        if (!paymentReference)
          return rejected(
            'void',
            'missing_reference',
            error(422, '130', "Required field 'paymentReference' is not provided.", 'validation'),
          );
        const payments = [...store.payments.values()].filter(
          (payment) => payment.account === account && payment.reference === paymentReference,
        );
        const cancelled = payments.filter((payment) => voidPayment(payment).ok);
        const reference = read.str(body.reference);
        return {
          reply: json(201, {
            merchantAccount: account,
            paymentReference,
            pspReference: pspReference(),
            reference,
            status: 'received',
          }),
          entry: draft('void', {
            ...(cancelled[0] ? paymentFields(cancelled[0]) : {}),
            reference: paymentReference,
            outcome: cancelled.length > 0 ? 'approved' : 'rejected',
            reason: cancelled.length > 0 ? 'technical_cancel' : payments.length > 0 ? 'captured' : 'not_found',
          }),
        };
      }),
    )
    // The end of a 3-D Secure challenge: the payment its redirectResult names, as it stands (the request names no
    // merchantAccount: the payment's own is the account). An unknown redirectResult is refused.
    .on('POST', '/v71/payments/details', (request) => {
      const paymentOf = (body: Record<string, unknown>) =>
        store.payments.get(redirectResults.paymentOf(read.str(read.obj(body.details).redirectResult)) ?? '');
      return guarded(
        request,
        'lookup',
        async (_account, body) => {
          const payment = paymentOf(body)!;
          if (payment.state === 'requires_action')
            return rejected('lookup', 'challenge_open', error(422, '000', 'Authentication not finished', 'validation'));
          return {
            reply: json(200, paymentResponse(payment)),
            entry: draft('lookup', { ...paymentFields(payment), outcome: 'approved' }),
          };
        },
        {
          find: (body) => paymentOf(body)?.account ?? null,
          unknown: () => error(422, '000', 'Invalid redirectResult', 'validation'),
        },
      );
    })
    .on('POST', '/v71/payments/:psp/captures', modification('capture'))
    .on('POST', '/v71/payments/:psp/cancels', modification('void'))
    .on('POST', '/v71/payments/:psp/refunds', modification('refund'))
    .on('POST', '/v71/paymentMethods', (request) =>
      guarded(request, 'test_credentials', async () => ({
        reply: json(200, {
          paymentMethods: [
            { type: 'scheme', name: 'Cards', brands: ['visa', 'mc', 'amex', 'elo', 'hipercard'] },
            { type: 'pix', name: 'Pix' },
            { type: 'boletobancario', name: 'Boleto Bancario' },
          ],
        }),
        entry: draft('test_credentials', { outcome: 'approved' }),
      })),
    );

  return {
    slug: 'provider_b',
    router,
    accountOf: (credentials) =>
      typeof credentials.merchant_account === 'string' ? credentials.merchant_account : null,
    webhook: (event, payment, refundRecord, endpoint) =>
      notificationOf(
        event,
        payment,
        refundRecord,
        endpoint,
        payment?.declineReason ? REFUSALS[payment.declineReason].reason : 'Refused',
      ),
  };
};
