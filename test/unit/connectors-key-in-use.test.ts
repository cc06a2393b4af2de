/**
 * Unknown is unknown: every adapter reads its provider's "an earlier request under this idempotency key is still
 * processing / was already processed" reply as `unknown` (look it up under the key), never as a refusal that
 * would let the cascade charge another connector. The replies are the ones the sandbox sends for an in-flight key.
 */
import { expect } from 'chai';
import * as providerA from '../../domain/connectors/provider_a/transformers';
import * as providerB from '../../domain/connectors/provider_b/transformers';
import * as providerC from '../../domain/connectors/provider_c/transformers';
import * as providerD from '../../domain/connectors/provider_d/transformers';
import * as checkout from '../../domain/connectors/checkout/transformers';
import { isSafeToTryNextConnector } from '../../workflows/lib/transaction-types';
import { answer } from '../helpers/rows';

const expectUnknown = (result: { outcome: string }) => {
  expect(result.outcome).to.equal('unknown');
  expect(isSafeToTryNextConnector(result.outcome as never)).to.equal(false);
};

describe('adapters: an idempotency key still in use is an unknown outcome', () => {
  it('provider_a: 409 idempotency_key_in_use, on authorize, capture, void and refund', () => {
    const inUse = answer(409, {
      error: { type: 'idempotency_error', code: 'idempotency_key_in_use', message: 'another in-progress request' },
    });
    expectUnknown(providerA.fromIntent(inUse, 'payment_intent'));
    expectUnknown(providerA.fromModification(inUse, 'succeeded'));
    expectUnknown(providerA.fromModification(inUse, 'canceled'));
    expectUnknown(providerA.fromRefund(inUse));
    // A key reused with other parameters is our request refused, as before.
    expect(
      providerA.fromIntent(answer(400, { error: { type: 'idempotency_error' } }), 'payment_intent').outcome,
    ).to.equal('processing_error');
  });

  it('provider_b: 422 errorCode 704 (request already processed or in progress)', () => {
    const inUse = answer(422, {
      status: 422,
      errorCode: '704',
      message: 'request already processed or in progress',
      errorType: 'validation',
    });
    expectUnknown(providerB.fromPayment(inUse));
    expectUnknown(providerB.fromModification(inUse, 'refund'));
  });

  it('provider_c: 409 on the X-Idempotency-Key', () => {
    const inUse = answer(409, { message: 'The idempotency key has already been used', error: 'conflict', status: 409 });
    expectUnknown(providerC.fromPayment(inUse));
    expectUnknown(providerC.fromRefund(inUse));
  });

  it('checkout: 409 idempotency_key_conflict', () => {
    const inUse = answer(409, { request_id: 'req_1', error_type: 'idempotency_key_conflict' });
    expectUnknown(checkout.fromPayment(inUse));
    expectUnknown(checkout.fromAction(inUse, 'capture', 'pay_1'));
  });

  it('provider_d: reason 11, a duplicate transaction (the first one may have been approved)', () => {
    const duplicate = answer(200, {
      transactionResponse: {
        responseCode: '3',
        transId: '0',
        errors: [{ errorCode: '11', errorText: 'A duplicate transaction has been submitted.' }],
      },
      messages: { resultCode: 'Error', message: [{ code: 'E00027', text: 'The transaction was unsuccessful.' }] },
    });
    expectUnknown(providerD.fromTransaction(duplicate));
  });
});
