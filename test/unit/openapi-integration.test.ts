/**
 * The integration document (GET /api/v1/openapi/integration.json, rendered at /docs): the merchant API without the
 * Dashboard's endpoints, every operation with a request example (when it takes a body) and a response example, and
 * every example valid against the schema it illustrates, so a copied example is never refused by the server.
 */
import { expect } from 'chai';
import { apiRoutesAndDocument } from '../../api/app';
import { bodyAjv } from '../../api/http/schema';

type Json = Record<string, any>;
const METHODS = ['get', 'post', 'put', 'patch', 'delete'];
const { integration, openApi } = apiRoutesAndDocument() as { integration: Json; openApi: Json };

const operationsOf = (doc: Json) =>
  Object.entries(doc.paths as Record<string, Json>).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => METHODS.includes(method))
      .map(([method, operation]) => ({ key: `${method} ${path}`, operation: operation as Json })),
  );
const operations = operationsOf(integration);

/** The operations a newcomer's first day calls (the guides' steps). */
const MAIN = [
  'post /api/v1/customers',
  'get /api/v1/customers',
  'get /api/v1/customers/{customerId}',
  'post /api/v1/products',
  'post /api/v1/offers',
  'post /api/v1/checkout-sessions',
  'get /api/v1/checkout-sessions/{id}',
  'post /api/v1/transactions',
  'get /api/v1/transactions',
  'get /api/v1/transactions/{transactionId}',
  'get /api/v1/transactions/{transactionId}/attempts',
  'post /api/v1/transactions/{transactionId}/capture',
  'post /api/v1/transactions/{transactionId}/void',
  'post /api/v1/transactions/{transactionId}/refunds',
  'post /api/v1/sessions',
  'post /api/v1/tokens',
  'post /api/v1/merchants/{merchant_id}/enrolment-tokens',
  'post /api/v1/sessions/{sessionId}/payment-instruments',
  'post /api/v1/merchants/{merchant_id}/payment-instruments',
  'get /api/v1/merchants/{merchant_id}/payment-instruments',
  'get /api/v1/merchants/{merchant_id}/subscriptions',
  'get /api/v1/merchants/{merchant_id}/subscriptions/{subscription_id}',
  'post /api/v1/merchants/{merchant_id}/subscriptions/{subscription_id}/cancel',
  'post /api/v1/test-clocks',
  'get /api/v1/test-clocks/{test_clock_id}',
  'post /api/v1/test-clocks/{test_clock_id}/advance',
  'post /api/v1/merchants/{merchant_id}/webhook-configs',
  'get /api/v1/merchants/{merchant_id}/webhook-deliveries',
  'post /api/v1/merchants/{merchant_id}/connectors',
  'post /api/v1/merchants/{merchant_id}/routing-profiles',
];

const successOf = (operation: Json) =>
  Object.entries(operation.responses as Record<string, Json>).find(
    ([status, response]) => Number(status) < 300 && response.content?.['application/json']?.example !== undefined,
  );

describe('The integration document: the merchant API without the Dashboard, with examples', () => {
  it('holds no Dashboard endpoint: no Dashboard token, no sign-in or invitation, no /merchant/, /org/ or /admin/ path', () => {
    const dashboardOnly = operations.filter(
      ({ key, operation }) =>
        /^\w+ \/api\/v1\/(auth|invitations|merchant|org|admin)(\/|$)/.test(key) ||
        (operation.security as Json[] | undefined)?.some((entry) => 'dashboardToken' in entry),
    );
    expect(dashboardOnly.map(({ key }) => key)).to.deep.equal([]);
    expect(Object.keys(integration.components.securitySchemes)).to.not.include('dashboardToken');
  });

  it('keeps every other operation of the full document', () => {
    const full = operationsOf(openApi).filter(
      ({ key, operation }) =>
        !/^\w+ \/api\/v1\/(auth|invitations)\//.test(key) &&
        !(operation.security as Json[] | undefined)?.some((entry) => 'dashboardToken' in entry),
    );
    expect(operations.map(({ key }) => key)).to.have.members(full.map(({ key }) => key));
    expect(MAIN.filter((key) => !operations.some((entry) => entry.key === key))).to.deep.equal([]);
  });

  it('shows a request example on every operation with a body and a response example on every operation', () => {
    const missing = operations.flatMap(({ key, operation }) => [
      ...(operation.requestBody && operation.requestBody.content['application/json'].example === undefined
        ? [`${key}: request`]
        : []),
      ...(successOf(operation) ? [] : [`${key}: response`]),
    ]);
    const withBody = operations.filter(({ operation }) =>
      Object.entries(operation.responses as Record<string, Json>).some(
        ([status, response]) => Number(status) < 300 && response.content,
      ),
    );
    expect(
      missing.filter((entry) => withBody.some(({ key }) => entry.startsWith(`${key}:`)) || entry.endsWith('request')),
    ).to.deep.equal([]);
  });

  it('every example is valid against the schema it illustrates', () => {
    const invalid: string[] = [];
    const check = (where: string, schema: Json, example: unknown) => {
      const validate = bodyAjv.compile({ ...schema, components: integration.components });
      if (!validate(example)) invalid.push(`${where}: ${bodyAjv.errorsText(validate.errors)}`);
    };
    for (const { key, operation } of operations) {
      const request = operation.requestBody?.content['application/json'];
      if (request) check(`${key} request`, request.schema, request.example);
      const success = successOf(operation);
      if (success) {
        const content = success[1].content['application/json'];
        check(`${key} ${success[0]}`, content.schema, content.example);
      }
    }
    expect(invalid).to.deep.equal([]);
  });
});
