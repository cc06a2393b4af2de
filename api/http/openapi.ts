/**
 * The OpenAPI 3.1 document, generated from the same route declarations that validate requests, so the
 * document can't drift from what the server enforces. Served at GET /api/v1/openapi.json.
 */
import { STATUS_CODES } from 'node:http';
import type { TObject, TSchema } from '@sinclair/typebox';
import { isDashboardAuth, type AnyRoute } from './define-route';
import { bodySchemaOf } from './route-runner';
import { linksOf } from './openapi-links';
import { operationDescription, TAG_DESCRIPTIONS } from './openapi-descriptions';
import { PaginationSchema } from './schema';
import { exampleOf, resourceOfPath } from './openapi-examples';

type Json = Record<string, unknown>;

const API_DESCRIPTION = [
  'Payment orchestration: one API in front of several payment providers, with routing, retries, subscriptions and a hosted checkout.',
  '**Money** is always an integer in the minor units of its currency: `"amount": 4990` with `"currency": "BRL"` is R$49.90, and 1000 is 10.00 in any two-decimal currency (JPY has no minor unit: 1000 is ¥1,000).',
  '**Keys:** secret keys (sk_live_org_… for an organization, sk_live_mer_… for one merchant) in `Authorization: Bearer`; public keys (pk_…) only on the browser endpoints, in X-Public-Key. Dashboard endpoints take a Dashboard access token instead.',
  '**Errors** share one envelope: `{"error": {"type", "code", "message", "details", "request_id", "timestamp"}}`; a failed request changes nothing. **Retries:** create endpoints take an Idempotency-Key.',
].join('\n\n');

const ERROR_SCHEMA = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['type', 'code', 'message', 'request_id', 'timestamp'],
      properties: {
        type: { type: 'string' },
        code: { type: 'string' },
        message: { type: 'string' },
        details: { type: 'object', description: 'For validation errors: field name → array of messages' },
        request_id: { type: 'string' },
        timestamp: { type: 'string', format: 'date-time' },
      },
    },
  },
};

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'validation_error or bad_request_error',
  401: 'authentication_error: missing, malformed or invalid key',
  403: 'authorization_error: missing scope, wrong key kind or merchant outside the key',
  404: 'not_found_error',
  409: 'conflict_error',
  422: 'business_rule_error',
  429: 'rate_limit_error (see Retry-After and RateLimit-* headers)',
  500: 'internal_server_error',
  502: 'external_service_error: a payment provider or the workflow service was unreachable (retry with backoff)',
  503: 'external_service_error DATABASE_UNAVAILABLE: the database could not be reached; nothing changed (retry after Retry-After seconds). In production also internal_server_error UNTRUSTED_PROXY: the request came through a proxy not in TRUSTED_PROXIES; nothing changed, an operator must fix the setting',
};

function openApiPath(path: string): string {
  return path.replace(/:([A-Za-z_]+)/g, '{$1}');
}

function operationId(route: AnyRoute): string {
  const words = route.path.split(/[/:_-]+/).filter(Boolean);
  return route.method + words.map((word) => word[0].toUpperCase() + word.slice(1)).join('');
}

/** JSON round-trip drops TypeBox's symbol keys and leaves plain JSON Schema. */
const plain = (schema: TSchema): Json => JSON.parse(JSON.stringify(schema)) as Json;

function parameters(route: AnyRoute): Json[] {
  const list: Json[] = [];
  for (const [location, schema] of [
    ['path', route.params],
    ['query', route.query],
  ] as const) {
    const object = schema as TObject | undefined;
    for (const [name, property] of Object.entries(object?.properties ?? {})) {
      list.push({
        name,
        in: location,
        // A parameter with a default (page, limit) may be left out: the server fills it in.
        required:
          location === 'path' || ((object?.required ?? []).includes(name) && (property as Json).default === undefined),
        schema: plain(property),
        ...((property as Json)['x-comma-separated']
          ? { style: 'form', explode: true, description: 'Repeat the parameter or separate values with commas' }
          : {}),
      });
    }
  }
  if (route.idempotency) {
    list.push({
      name: 'Idempotency-Key',
      in: 'header',
      required: route.idempotency === 'required',
      schema: { type: 'string', maxLength: 255 },
      description: 'Replays within the retention window return the first response with 200',
    });
  }
  return list;
}

function successSchema(route: AnyRoute, data: Json): Json {
  const pagination = { $ref: '#/components/schemas/Pagination' };
  if (route.envelope === 'wrapped') {
    return {
      type: 'object',
      required: ['success', 'data', 'request_id', 'timestamp'],
      properties: {
        success: { const: true },
        data,
        ...(route.pagination ? { meta: { type: 'object', properties: { pagination } } } : {}),
        request_id: { type: 'string' },
        timestamp: { type: 'string', format: 'date-time' },
      },
    };
  }
  if (!route.pagination) return data;
  return {
    type: 'object',
    required: ['data', 'meta'],
    properties: {
      data,
      meta: route.pagination === 'flat' ? pagination : { type: 'object', properties: { pagination } },
    },
  };
}

const PAGINATION_EXAMPLE = { page: 1, limit: 20, total: 1, total_pages: 1, has_next: false, has_prev: false };

/** A response example as the client receives it: in the success envelope of wrapped routes, with a list's paging. */
function enveloped(route: AnyRoute, data: unknown): unknown {
  const nested = route.pagination ? { meta: { pagination: PAGINATION_EXAMPLE } } : {};
  if (route.envelope === 'wrapped') {
    return { success: true, data, ...nested, request_id: 'req_5yQ2kLm8Wd3Hs1', timestamp: '2026-11-25T14:03:12.345Z' };
  }
  if (!route.pagination) return data;
  return { data, meta: route.pagination === 'flat' ? PAGINATION_EXAMPLE : nested.meta };
}

function responses(route: AnyRoute, routes: readonly AnyRoute[]): Json {
  const out: Json = {};
  const links = linksOf(route, routes, operationId);
  // A create shows its example on 201, any other route on its first 2xx with a body.
  const withBody = Object.keys(route.responses).filter((code) => route.responses[Number(code)] && Number(code) < 300);
  const exampleStatus = withBody.includes('201') ? '201' : withBody[0];
  for (const [status, schema] of Object.entries(route.responses)) {
    const statusLinks = links.get(Number(status));
    const example: unknown =
      status === exampleStatus && schema
        ? (route.responseExample ?? exampleOf(plain(schema), { required: false, resource: resourceOfPath(route.path) }))
        : undefined;
    out[status] = schema
      ? {
          description: STATUS_CODES[status] ?? 'Response',
          content: {
            'application/json': {
              schema: successSchema(route, plain(schema)),
              ...(example === undefined ? {} : { example: enveloped(route, example) }),
            },
          },
          ...(statusLinks ? { links: statusLinks } : {}),
        }
      : { description: `${STATUS_CODES[status]}, empty body` };
  }
  // An Idempotency-Key replay answers 200 with the first response's body, whatever that response's status was.
  const created = route.responses[201];
  if (route.idempotency && created && !out[200]) {
    out[200] = {
      description: 'Replay: the first response to this Idempotency-Key',
      content: { 'application/json': { schema: successSchema(route, plain(created)) } },
    };
  }
  const implied = route.auth === 'none' ? [400, 500, 503] : [400, 401, 403, 404, 409, 429, 500, 502, 503];
  const errorStatuses = [...new Set([...implied, ...(route.errors ?? [])])].sort((a, b) => a - b);
  for (const status of errorStatuses) {
    if (out[status]) continue;
    out[status] = {
      description: ERROR_DESCRIPTIONS[status],
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
    };
  }
  return out;
}

function requestBody(route: AnyRoute, body: TSchema): Json {
  const example: unknown =
    route.example ?? exampleOf(plain(body), { required: true, resource: resourceOfPath(route.path) });
  return { required: true, content: { 'application/json': { schema: plain(body), example } } };
}

/** `serverUrl`: where this deployment is reached (PUBLIC_BASE_URL); paths carry the /api/v1 prefix. */
export function buildOpenApi(routes: readonly AnyRoute[], prefix: string, serverUrl = 'http://localhost:3000'): Json {
  const usedTags = new Set(routes.flatMap((route) => route.tags));
  const paths: Record<string, Json> = {};
  for (const route of routes) {
    const body = bodySchemaOf(route);
    (paths[openApiPath(prefix + route.path)] ??= {})[route.method] = {
      operationId: operationId(route),
      summary: route.summary,
      description: operationDescription(route),
      tags: route.tags,
      ...(route.auth === 'none'
        ? { security: [] }
        : isDashboardAuth(route.auth)
          ? {
              security: [{ dashboardToken: [] }],
              'x-dashboards': route.auth.dashboard,
              ...(route.auth.tenant ? { 'x-tenant-header': `x-${route.auth.tenant}-id` } : {}),
            }
          : {
              ...(route.auth.publicKey ? { security: [{ publicKey: [] }] } : {}),
              'x-scopes': route.auth.scopes,
              'x-key-levels': route.auth.keys,
            }),
      parameters: parameters(route),
      ...(body ? { requestBody: requestBody(route, body) } : {}),
      responses: responses(route, routes),
    };
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Switchyard API', version: '1.0.0', description: API_DESCRIPTION },
    servers: [{ url: serverUrl, description: 'This deployment (PUBLIC_BASE_URL)' }],
    tags: [...usedTags].map((name) => ({ name, description: TAG_DESCRIPTIONS[name] })),
    security: [{ apiKey: [] }],
    paths,
    components: {
      securitySchemes: {
        apiKey: { type: 'http', scheme: 'bearer', description: 'sk_live_org_… or sk_live_mer_…' },
        dashboardToken: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description:
            'Dashboard access token from a login endpoint (HS256, about 15 minutes); merchant Dashboard endpoints also take x-merchant-id, organization ones x-organization-id. Never an API key.',
        },
        publicKey: {
          type: 'apiKey',
          in: 'header',
          name: 'X-Public-Key',
          description: 'pk_live_org_… or pk_live_mer_… (browser endpoints)',
        },
      },
      schemas: { Error: ERROR_SCHEMA, Pagination: plain(PaginationSchema) },
    },
  };
}
