/**
 * The OpenAPI links (api/http/openapi-links.ts) that Schemathesis's stateful phase follows: each must name an
 * operation that exists, fill parameters and body fields that operation has, from values the source really returns.
 */
import { expect } from 'chai';
import { ROUTES } from '../../api/app';
import { buildOpenApi } from '../../api/http/openapi';

type Json = Record<string, any>;
const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

const doc: Json = buildOpenApi(ROUTES, '/api/v1');
const operations = Object.entries(doc.paths as Record<string, Json>).flatMap(([path, item]) =>
  Object.entries(item)
    .filter(([method]) => METHODS.includes(method))
    .map(([method, operation]) => ({ method, path, operation: operation as Json })),
);
const byId = new Map(operations.map((entry) => [entry.operation.operationId as string, entry]));

interface Link {
  source: string;
  status: string;
  name: string;
  link: Json;
  responseSchema: Json;
  sourceParams: Json[];
}
const links: Link[] = operations.flatMap(({ operation }) =>
  Object.entries(operation.responses as Record<string, Json>).flatMap(([status, response]) =>
    Object.entries((response.links ?? {}) as Record<string, Json>).map(([name, link]) => ({
      source: operation.operationId as string,
      status,
      name,
      link,
      responseSchema: response.content?.['application/json']?.schema as Json,
      sourceParams: operation.parameters as Json[],
    })),
  ),
);

/** Whether a JSON pointer can point at something in a response shaped like `schema` (inline schemas only). */
function resolves(schema: Json | undefined, parts: string[]): boolean {
  if (!schema) return false;
  if (parts.length === 0) return true;
  const alternatives = (schema.anyOf ?? schema.oneOf) as Json[] | undefined;
  if (alternatives) return alternatives.some((alternative) => resolves(alternative, parts));
  const [head, ...rest] = parts;
  if (/^\d+$/.test(head)) return resolves(schema.items as Json | undefined, rest);
  return resolves((schema.properties as Json | undefined)?.[head] as Json | undefined, rest);
}

function checkExpression(entry: Link, expression: string): string | null {
  const label = `${entry.source} ${entry.status} → ${entry.name}: ${expression}`;
  const request = /^\$request\.path\.(.+)$/.exec(expression);
  if (request) {
    const ok = entry.sourceParams.some((param) => param.in === 'path' && param.name === request[1]);
    return ok ? null : `${label}: the source has no path parameter ${request[1]}`;
  }
  const response = /^\$response\.body#\/(.+)$/.exec(expression);
  if (!response) return `${label}: not a $request.path or $response.body expression`;
  return resolves(entry.responseSchema, response[1].split('/')) ? null : `${label}: not in the response schema`;
}

describe('OpenAPI links (the stateful phase of the fuzzer chains calls along them)', () => {
  it('the document has links, on 2xx responses only', () => {
    expect(links.length).to.be.greaterThan(150);
    for (const entry of links) expect(entry.status, `${entry.source} → ${entry.name}`).to.match(/^2\d\d$/);
  });

  it('every link names an existing operationId, fills every path parameter of it and only parameters it has', () => {
    const problems: string[] = [];
    for (const entry of links) {
      const label = `${entry.source} ${entry.status} → ${entry.name}`;
      const target = byId.get(entry.link.operationId as string);
      if (!target) {
        problems.push(`${label}: no operation ${entry.link.operationId}`);
        continue;
      }
      const params = target.operation.parameters as Json[];
      const filled = Object.keys((entry.link.parameters ?? {}) as Json);
      for (const name of filled)
        if (!params.some((param) => param.name === name && ['path', 'query'].includes(param.in as string)))
          problems.push(`${label}: ${target.operation.operationId} has no parameter ${name}`);
      for (const param of params.filter((candidate) => candidate.in === 'path'))
        if (!filled.includes(param.name as string))
          problems.push(`${label}: path parameter ${param.name} is not filled`);
      const bodyFields = Object.keys((entry.link.requestBody ?? {}) as Json);
      const bodySchema = target.operation.requestBody?.content?.['application/json']?.schema as Json | undefined;
      for (const field of bodyFields)
        if (!(bodySchema?.properties as Json | undefined)?.[field])
          problems.push(`${label}: the body of ${target.operation.operationId} has no field ${field}`);
    }
    expect(problems, problems.join('\n')).to.deep.equal([]);
  });

  it('every link takes its values from a path parameter of the request or a field of the response schema', () => {
    const problems: string[] = [];
    for (const entry of links) {
      const expressions = [
        ...Object.values((entry.link.parameters ?? {}) as Record<string, string>),
        ...Object.values((entry.link.requestBody ?? {}) as Record<string, string>),
      ];
      for (const expression of expressions) {
        const problem = checkExpression(entry, expression);
        if (problem) problems.push(problem);
      }
    }
    expect(problems, problems.join('\n')).to.deep.equal([]);
  });

  it('links every main resource from where it is created (or listed) to the routes that take its id', () => {
    const has = (source: string, target: string) =>
      links.some((entry) => entry.source === source && entry.link.operationId === target);
    const expected: Array<[string, string]> = [
      ['postCustomers', 'getCustomersCustomerId'],
      ['postCustomers', 'patchCustomersCustomerId'],
      ['postCustomers', 'deleteCustomersCustomerId'],
      ['postProductFamilies', 'postProducts'],
      ['postProducts', 'postOffers'],
      ['postOffers', 'postOffersOfferIdPrices'],
      ['postOffersOfferIdPrices', 'getOfferPricesId'],
      ['postOfferTransitions', 'deleteOfferTransitionsId'],
      ['postCheckoutSessions', 'postCheckoutSessionsIdItems'],
      ['postCheckoutSessionsIdItems', 'deleteCheckoutSessionsIdItemsItemId'],
      ['postSessions', 'postSessionsSessionIdCheckoutConfirm'],
      ['postTokens', 'getTokensTokenId'],
      ['postMerchantsMerchantIdPaymentInstruments', 'deleteMerchantsMerchantIdPaymentInstrumentsPaymentInstrumentId'],
      ['postTransactions', 'postTransactionsTransactionIdCapture'],
      ['postTransactions', 'postTransactionsTransactionIdVoid'],
      ['postTransactions', 'postTransactionsTransactionIdRefunds'],
      ['postTransactionsTransactionIdRefunds', 'getTransactionsTransactionIdRefundsRefundId'],
      ['getOrders', 'getOrdersOrderId'],
      ['postMerchantsMerchantIdWebhookConfigs', 'postMerchantsMerchantIdWebhooksWebhookIdRotateSecret'],
      ['getMerchantsMerchantIdSubscriptions', 'postMerchantsMerchantIdSubscriptionsSubscriptionIdCancel'],
      ['postMerchantsMerchantIdConnectors', 'patchMerchantsMerchantIdConnectorsConnectorId'],
      ['postOrgConnectors', 'postOrgConnectorsConnectorIdTest'],
      ['postMerchantsMerchantIdRoutingProfiles', 'postMerchantsMerchantIdRoutingProfilesProfileIdNodes'],
      ['postMerchants', 'postMerchantsMerchantIdWebhookConfigs'],
      ['getEvents', 'getEventsId'],
    ];
    const missing = expected.filter(([source, target]) => !has(source, target));
    expect(missing.map((pair) => pair.join(' → ')).join('\n'), 'missing links').to.equal('');
  });
});
