import { Type } from '@sinclair/typebox';
import { defineRoute } from '../../http/define-route';
import { pagination } from '../../http/pagination';
import {
  CreateCustomerBody,
  CustomerParams,
  CustomerReceiptSchema,
  CustomerSchema,
  DeleteCustomerQuery,
  ListCustomersQuery,
  UpdateCustomerBody,
} from './customers.schema';
import { presentCustomer, presentCustomerReceipt } from './customers.presenter';
import { createCustomer, deleteCustomer, readCustomer, listCustomers, updateCustomer } from './customers.service';

const tags = ['Customers'];
const merchantKeyOnly = ['merchant'] as const;

export const customerRoutes = [
  defineRoute({
    method: 'post',
    path: '/customers',
    summary: 'Create a customer (200 with the existing one when the email is already used)',
    description:
      "Creates the person who pays. The e-mail is unique per merchant: sending a known e-mail answers 200 with the existing customer, unchanged (update it with PATCH). The document number is stored encrypted; responses show only its last digits. Attach a test clock (test_clock_id) to run this customer's subscriptions in simulated time.",
    example: {
      email: 'maria.silva@example.com',
      name: 'Maria Silva',
      phone: '+5511987654321',
      document_type: 'cpf',
      document_number: '52998224725',
      billing_address: {
        line_1: 'Avenida Paulista, 1000',
        line_2: 'Apto 12',
        zip_code: '01310-100',
        city: 'São Paulo',
        state: 'SP',
        country: 'BR',
      },
      metadata: { crm_id: 'C-1042' },
    },
    responseExample: {
      id: 'cust_8Kq2mVxT3nR5',
      merchant_id: 'mrc_2Wd8HnQe4Lz1',
      email: 'maria.silva@example.com',
      name: 'Maria Silva',
      created_at: '2026-11-25T14:02:58.120Z',
    },
    tags,
    auth: { keys: merchantKeyOnly, scopes: ['customers:write'] },
    body: CreateCustomerBody,
    responses: { 201: CustomerReceiptSchema, 200: CustomerReceiptSchema },
    envelope: 'wrapped',
    // 422 business_rule_error: the test clock named holds as many customers as it may.
    errors: [422],
    links: [
      // A customer's id feeds the bodies that take one; its merchant_id names the merchant-path routes.
      { to: 'post /checkout-sessions', from: { 'body.customer_id': 'id' } },
      { to: 'post /transactions', from: { 'body.customer_id': 'id' } },
      {
        to: 'post /merchants/:merchant_id/payment-instruments',
        from: { merchant_id: 'merchant_id', 'body.customer_id': 'id' },
      },
    ],
    idempotency: 'optional',
    async handler({ em, merchantId, body, deps }) {
      const { customer, created } = await createCustomer(em, merchantId, body, deps.config.encryptionKey);
      return { status: created ? 201 : 200, data: presentCustomerReceipt(customer) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/customers',
    summary: 'List customers, newest first',
    tags,
    auth: { keys: merchantKeyOnly, scopes: ['customers:read'] },
    query: ListCustomersQuery,
    responses: { 200: Type.Array(CustomerSchema) },
    envelope: 'wrapped',
    pagination: 'nested',
    async handler({ em, merchantId, query }) {
      const { items, total } = await listCustomers(em, merchantId, query);
      return { status: 200, data: items.map(presentCustomer), pagination: pagination(query, total) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/customers/:customerId',
    summary: 'Get a customer',
    tags,
    auth: { keys: merchantKeyOnly, scopes: ['customers:read'] },
    params: CustomerParams,
    responses: { 200: CustomerSchema },
    envelope: 'wrapped',
    // One raw read (db/reads.ts) through the ORM's root EntityManager: no request EntityManager is forked.
    async handler({ deps, merchantId, params }) {
      return { status: 200, data: presentCustomer(await readCustomer(deps.orm.em, merchantId, params.customerId)) };
    },
  }),
  defineRoute({
    method: 'patch',
    path: '/customers/:customerId',
    summary: 'Update a customer (metadata is replaced, not merged)',
    tags,
    auth: { keys: merchantKeyOnly, scopes: ['customers:write'] },
    params: CustomerParams,
    body: UpdateCustomerBody,
    responses: { 200: CustomerSchema },
    envelope: 'wrapped',
    async handler({ em, merchantId, params, body, deps }) {
      const customer = await updateCustomer(em, merchantId, params.customerId, body, deps.config.encryptionKey);
      return { status: 200, data: presentCustomer(customer) };
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/customers/:customerId',
    summary: 'Delete a customer without history; the email becomes reusable',
    tags,
    auth: { keys: ['merchant', 'organization'], scopes: ['customers:write'] },
    params: CustomerParams,
    query: DeleteCustomerQuery,
    responses: { 204: null },
    envelope: 'wrapped',
    async handler({ em, merchantId, params }) {
      await deleteCustomer(em, merchantId, params.customerId);
      return { status: 204 };
    },
  }),
];
