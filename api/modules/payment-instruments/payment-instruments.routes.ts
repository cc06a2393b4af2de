import { Type } from '@sinclair/typebox';
import { defineRoute } from '../../http/define-route';
import { pagination } from '../../http/pagination';
import {
  CreateInstrumentBody,
  CreatedInstrumentSchema,
  InstrumentParams,
  InstrumentSchema,
  ListInstrumentsQuery,
  MerchantParams,
  UpdateInstrumentBody,
} from './payment-instruments.schema';
import { presentCreatedInstrument, presentInstrument } from './payment-instruments.presenter';
import {
  createInstrument,
  getInstrument,
  listInstruments,
  revokeInstrument,
  updateInstrumentStatus,
} from './payment-instruments.service';
import { saveTestPaymentMethod } from './test-payment-methods.service';
import { errors } from '../../../domain/platform/errors';

const tags = ['Payment instruments'];
const keys = ['merchant', 'organization'] as const;
const path = '/merchants/:merchant_id/payment-instruments';

export const paymentInstrumentRoutes = [
  defineRoute({
    method: 'post',
    path,
    summary:
      'Save a card from a single-use instrument_enrollment token, or a test payment method in test mode (200 with the existing instrument for the same card)',
    tags,
    auth: { keys, scopes: ['instruments:write'] },
    params: MerchantParams,
    body: CreateInstrumentBody,
    responses: { 200: CreatedInstrumentSchema },
    envelope: 'bare',
    // 400 TEST_PAYMENT_METHOD_LIVE_MODE: a test payment method for a merchant with a live connector.
    // 422 business_rule_error: an expired token.
    errors: [422],
    links: [{ to: 'post /transactions', from: { 'body.payment_instrument_id': 'id' } }],
    idempotency: 'optional',
    async handler({ em, merchantId, auth, body, deps }) {
      const now = new Date();
      if ((body.card_ciphertext_id === undefined) === (body.payment_method === undefined)) {
        throw errors.validation({ card_ciphertext_id: ['exactly one of card_ciphertext_id and payment_method'] });
      }
      const input = {
        organizationId: auth.organizationId,
        merchantId,
        customerId: body.customer_id,
        metadata: body.metadata,
      };
      const { instrument, deduplicated } = body.payment_method
        ? await saveTestPaymentMethod(em, deps.config, body.payment_method, input, now)
        : await createInstrument(em, { ...input, tokenId: body.card_ciphertext_id! }, now);
      return { status: 200, data: presentCreatedInstrument(instrument, deduplicated, now) };
    },
  }),
  defineRoute({
    method: 'get',
    path,
    summary: 'List payment instruments, newest first',
    tags,
    auth: { keys, scopes: ['instruments:read'] },
    params: MerchantParams,
    query: ListInstrumentsQuery,
    responses: { 200: Type.Array(InstrumentSchema) },
    envelope: 'wrapped',
    pagination: 'nested',
    async handler({ em, merchantId, query }) {
      const now = new Date();
      const { items, total } = await listInstruments(em, merchantId, query, now);
      return {
        status: 200,
        data: items.map((item) => presentInstrument(item, now)),
        pagination: pagination(query, total),
      };
    },
  }),
  defineRoute({
    method: 'get',
    path: `${path}/:payment_instrument_id`,
    summary: 'Get a payment instrument',
    tags,
    auth: { keys, scopes: ['instruments:read'] },
    params: InstrumentParams,
    responses: { 200: InstrumentSchema },
    envelope: 'wrapped',
    async handler({ em, merchantId, params }) {
      return {
        status: 200,
        data: presentInstrument(await getInstrument(em, merchantId, params.payment_instrument_id), new Date()),
      };
    },
  }),
  defineRoute({
    method: 'patch',
    path: `${path}/:payment_instrument_id`,
    summary: 'Change the status (active, expired, revoked); revoked is final',
    tags,
    auth: { keys, scopes: ['instruments:write'] },
    params: InstrumentParams,
    body: UpdateInstrumentBody,
    responses: { 200: InstrumentSchema },
    envelope: 'wrapped',
    // 422 business_rule_error: a disallowed status move.
    errors: [422],
    async handler({ em, merchantId, params, body }) {
      const now = new Date();
      const instrument = await updateInstrumentStatus(em, merchantId, params.payment_instrument_id, body.status, now);
      return { status: 200, data: presentInstrument(instrument, now) };
    },
  }),
  defineRoute({
    method: 'delete',
    path: `${path}/:payment_instrument_id`,
    summary: 'Revoke a payment instrument (permanent)',
    tags,
    auth: { keys, scopes: ['instruments:write'] },
    params: InstrumentParams,
    responses: { 204: null },
    envelope: 'wrapped',
    async handler({ em, merchantId, params }) {
      await revokeInstrument(em, merchantId, params.payment_instrument_id, new Date());
      return { status: 204 };
    },
  }),
];
