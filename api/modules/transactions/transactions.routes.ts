import { Type } from '@sinclair/typebox';
import { defineRoute, type RouteLink } from '../../http/define-route';
import { idFromSeed } from '../../../domain/platform/ids';
import { pagination } from '../../http/pagination';
import {
  AttemptSchema,
  CreateTransactionBody,
  ListTransactionsQuery,
  MerchantQuery,
  TransactionParams,
  TransactionSchemaOut,
} from './transactions.schema';
import { presentAttempt } from '../../../domain/transactions/transactions.presenter';
import { buildTransactionInput, claimCheckout, runClaimedTransaction } from './transaction-request.service';
import { isStillProcessing, listAttempts, listTransactions, transactionView } from './transactions.service';
import { awaitTransaction } from '../../temporal/transactions';
import { transactionOperationRoutes } from './operations.routes';
import { transactionToPresent } from '../../../db/repositories/transactions.repository';
import { errors } from '../../../domain/platform/errors';
import { returnUrlProblem } from './return-url.rules';

const tags = ['Transactions'];
const keys = ['merchant', 'organization'] as const;

export const transactionRoutes = [
  defineRoute({
    method: 'post',
    path: '/transactions',
    summary:
      'Charge: routes across connectors with fallback, auto-creates an order; a decline is 201 with status failed',
    description:
      "Charges a customer and answers once the outcome is known. Pay with a card token from the browser SDK (card_ciphertext_id), a saved card (payment_instrument_id, merchant-initiated), pix or boleto (the answer carries payment_instructions and the transaction stays pending until paid), or a wallet. With checkout_session_id the amount, currency, customer and items come from the checkout session; a checkout session in setup mode takes no payment (422 CHECKOUT_SETUP_MODE, nothing created). The merchant's routing profile picks the connector; a technical failure or a retryable decline moves on to the next connector of the route. A decline is not an error: 201 with status failed, failure_code and the amount asked for. A card the issuer challenges (3-D Secure: require_3ds on the routing node, or the issuer's own demand) answers 201 pending with next_action {type redirect_to_url, url, expires_at}: send the buyer's browser to url; after the challenge it comes back through Switchyard to return_url?transaction_id=…, and the charge is authorized or fails authentication_failed / authentication_abandoned (transaction.action_required is emitted meanwhile). capture false only pre-authorizes (capture or void it later). Emits transaction.created and the transaction.* event of each state it reaches.",
    example: {
      payment_method: 'credit_card',
      charge_type: 'payment',
      country: 'BR',
      amount: 4990,
      currency: 'BRL',
      customer_id: 'cust_8Kq2mVxT3nR5',
      card_ciphertext_id: 'tok_3fJ9sLq1WcZ7',
      external_order_id: 'order-2026-0042',
      capture: true,
      installments: { count: 1 },
      metadata: { cart_id: 'c-981' },
    },
    responseExample: {
      id: 'tx_7Hq2Lm9Xc4Vb1Nz8',
      organization_id: 'org_3Kd8Wq1Lm5Tz',
      merchant_id: 'mrc_2Wd8HnQe4Lz1',
      order_id: 'ord_9Pz4Rt2Yh6Kq',
      subscription_id: null,
      external_order_id: 'order-2026-0042',
      customer_id: 'cust_8Kq2mVxT3nR5',
      payment_instrument_id: null,
      amount: 4990,
      amount_authorized: 4990,
      amount_captured: 4990,
      amount_refunded: 0,
      currency: 'BRL',
      payment_method: 'credit_card',
      wallet_type: null,
      charge_type: 'payment',
      livemode: true,
      country: 'BR',
      status: 'authorized',
      capture: true,
      risk_score: null,
      installments: 1,
      applied_routing_rule_id: 'rn_4Tg7Yu1Ws3Ex',
      payment_instructions: null,
      failure_code: null,
      failure_message: null,
      provider_code: null,
      next_action: null,
      metadata: { cart_id: 'c-981' },
      created_at: '2026-11-25T14:03:11.902Z',
      updated_at: '2026-11-25T14:03:12.311Z',
      timeline: [
        {
          attempt_number: 1,
          is_fallback: false,
          connector_id: 'conn_6Bv3Nm8Qw2Zs',
          provider_slug: 'provider_a',
          status: 'success',
          started_at: '2026-11-25T14:03:11.950Z',
          finished_at: '2026-11-25T14:03:12.280Z',
          error_category: null,
          error_code: null,
          provider_code: null,
          three_ds: { requested: false, status: 'not_requested', version: null, eci: null, liability_shift: false },
        },
      ],
    },
    tags,
    auth: { keys, scopes: ['transactions:write'] },
    body: CreateTransactionBody,
    responses: { 201: TransactionSchemaOut, 200: TransactionSchemaOut },
    envelope: 'wrapped',
    // 422 business_rule_error: an expired token, a checkout session that cannot be paid (CHECKOUT_SETUP_MODE for a
    // setup-mode one), no active routing profile for the payment method (ROUTING_NOT_CONFIGURED).
    errors: [422],
    links: [
      // The order a charge opened, and the same transaction on the merchant Dashboard.
      { to: 'get /orders/:orderId', from: { orderId: 'order_id' } },
      ...['get', 'get /attempts', 'post /capture', 'post /void', 'post /refunds', 'get /refunds'].map((call) => {
        const [method, tail = ''] = call.split(' ');
        return {
          to: `${method} /merchant/transactions/:transactionId${tail}` as RouteLink['to'],
          from: { transactionId: 'id' },
        };
      }),
    ],
    idempotency: 'required',
    waitsOnWorkflow: true,
    async handler({ em, merchantId, auth, body, deps, idempotencySeed }) {
      // The key is required here; the same request under the same key always names the same transaction.
      const transactionId = idFromSeed('tx', idempotencySeed!);
      try {
        if (await transactionToPresent(em, merchantId, transactionId)) {
          // An earlier try of this request started the charge and lost its answer (502): wait for that charge.
          await awaitTransaction(deps.temporal.client, transactionId, deps.config.workflowWaitMs);
        } else {
          const returnUrl = body.return_url;
          const problem = returnUrl ? returnUrlProblem(returnUrl, body.payment_method, deps.config.env) : null;
          if (problem) throw errors.invalidValue('return_url', problem);
          const input = await buildTransactionInput(em, auth.organizationId, merchantId, body, transactionId);
          await claimCheckout(em, input);
          await runClaimedTransaction(em, deps.temporal, input, deps.config.workflowWaitMs);
        }
      } catch (error) {
        // Document 3: creation always answers 201 and clients branch on status. Once the workflow has opened the
        // transaction, a passed deadline answers it as it stands (pending); its outcome follows by webhook or GET.
        // Only a charge no worker has opened yet keeps the 504 (nothing exists to answer with; retry the key).
        if (!isStillProcessing(error, 'CHARGE_STILL_PROCESSING')) throw error;
        if (!(await transactionToPresent(em, merchantId, transactionId))) throw error;
      }
      return { status: 201, data: await transactionView(em, merchantId, transactionId) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/transactions',
    summary: 'List transactions, newest first',
    tags,
    auth: { keys, scopes: ['transactions:read'] },
    query: ListTransactionsQuery,
    responses: { 200: Type.Array(TransactionSchemaOut) },
    envelope: 'wrapped',
    pagination: 'nested',
    async handler({ em, merchantId, query }) {
      const { items, total } = await listTransactions(em, merchantId, query);
      return { status: 200, data: items, pagination: pagination(query, total) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/transactions/:transactionId',
    summary: 'Get a transaction with its timeline',
    tags,
    auth: { keys, scopes: ['transactions:read'] },
    params: TransactionParams,
    query: MerchantQuery,
    responses: { 200: TransactionSchemaOut },
    envelope: 'wrapped',
    async handler({ em, merchantId, params }) {
      return {
        status: 200,
        data: await transactionView(em, merchantId, params.transactionId),
      };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/transactions/:transactionId/attempts',
    summary: 'The provider attempts of a transaction, in order, with routing node, outcome and provider message',
    tags,
    auth: { keys, scopes: ['transactions:read'] },
    params: TransactionParams,
    query: MerchantQuery,
    responses: { 200: Type.Array(AttemptSchema) },
    envelope: 'wrapped',
    async handler({ em, merchantId, params }) {
      return { status: 200, data: (await listAttempts(em, merchantId, params.transactionId)).map(presentAttempt) };
    },
  }),
  ...transactionOperationRoutes,
];
