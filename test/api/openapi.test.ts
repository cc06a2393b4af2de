/** GET /api/v1/openapi.json is generated from ROUTES; it must describe every route, its responses and its errors. */
import { expect } from 'chai';
import Ajv from 'ajv';
import { api } from '../helpers/http';
import { createTenant, customerInput } from '../helpers/factories';
import { expectWrapped, requestIdOf } from '../helpers/envelope';
import { ROUTES } from '../../api/app';
import type { AnyRoute } from '../../api/http/define-route';

const PREFIX = '/api/v1';
const ERROR_REF = '#/components/schemas/Error';
const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

const openApiPath = (path: string) => PREFIX + path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
const pathParams = (path: string) => [...path.matchAll(/:([A-Za-z0-9_]+)/g)].map((match) => match[1]);
const is2xx = (status: string | number) => Number(status) >= 200 && Number(status) < 300;
const label = (route: AnyRoute) => `${route.method.toUpperCase()} ${route.path}`;
/** Document 1 answers these with "201 with empty body" (not an empty object): the only non-204 without a body. */
const EMPTY_201 = new Set(['POST /invitations/accept', 'POST /invitations/decline']);

type Operation = {
  operationId: string;
  parameters: Array<Record<string, any>>;
  requestBody?: any;
  responses: Record<string, any>;
};

function operations(doc: any): Array<[string, string, Operation]> {
  return Object.entries(doc.paths as Record<string, Record<string, Operation>>).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => METHODS.includes(method))
      .map(([method, operation]): [string, string, Operation] => [method, path, operation]),
  );
}

/** JSON Pointer into the document (for ajv $refs). */
const pointer = (...parts: string[]) => parts.map((part) => part.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

describe('Route declarations (ROUTES)', () => {
  it('every route declares at least one 2xx response, with a schema unless it is 204 No Content', () => {
    expect(ROUTES).to.not.be.empty;
    for (const route of ROUTES) {
      const success = Object.entries(route.responses).filter(([status]) => is2xx(status));
      expect(success, `${label(route)} declares no 2xx response`).to.not.be.empty;
      for (const [status, schema] of success) {
        if (Number(status) === 204 || (Number(status) === 201 && EMPTY_201.has(label(route))))
          expect(schema, `${label(route)} ${status} must have no body schema`).to.equal(null);
        else expect(schema, `${label(route)} ${status} has no response schema`).to.be.an('object');
      }
    }
  });

  it('no two routes share a method and path', () => {
    const keys = ROUTES.map((route) => `${route.method} ${openApiPath(route.path)}`);
    expect(new Set(keys).size, keys.join('\n')).to.equal(keys.length);
  });

  it('every :param in a route path is declared in its params schema', () => {
    for (const route of ROUTES) {
      const declared = Object.keys((route.params as { properties?: object } | undefined)?.properties ?? {});
      expect(declared, label(route)).to.have.members(pathParams(route.path));
    }
  });
});

describe('GET /api/v1/openapi.json', () => {
  let doc: any;
  before(async () => {
    const res = await api.get('/openapi.json');
    expect(res.status, res.text).to.equal(200);
    doc = res.body;
  });

  it('is a bare OpenAPI 3.1.0 document served without authentication', async () => {
    const res = await api.get('/openapi.json');
    requestIdOf(res);
    expect(res.headers.get('content-type')).to.match(/^application\/json/);
    expect(res.body).to.not.have.property('success');
    expect(res.body.openapi).to.equal('3.1.0');
    expect(res.body.info).to.include.keys(['title', 'version']);
    expect(res.body.paths).to.be.an('object');
  });

  it('describes every mounted route under /api/v1, writing :param as {param}', () => {
    for (const route of ROUTES) {
      const path = openApiPath(route.path);
      expect(doc.paths, `${label(route)} → ${path}`).to.have.property(path);
      expect(doc.paths[path], `${label(route)} → ${path}`).to.have.property(route.method);
    }
    expect(doc.paths[`${PREFIX}/openapi.json`]).to.have.property('get');
  });

  it('describes nothing that is not mounted', () => {
    const mounted = new Set([
      ...ROUTES.map((route) => `${route.method} ${openApiPath(route.path)}`),
      `get ${PREFIX}/openapi.json`,
      `get ${PREFIX}/openapi/integration.json`,
    ]);
    for (const [method, path] of operations(doc)) expect(mounted, `${method} ${path}`).to.include(`${method} ${path}`);
    expect(operations(doc)).to.have.length(mounted.size);
  });

  it('declares every path parameter as a required in: path parameter', () => {
    for (const route of ROUTES) {
      const { parameters } = doc.paths[openApiPath(route.path)][route.method] as Operation;
      for (const name of pathParams(route.path)) {
        const parameter = parameters.find((candidate) => candidate.name === name && candidate.in === 'path');
        expect(parameter, `${label(route)} :${name}`).to.include({ required: true });
      }
    }
  });

  it('gives every operation a unique operationId', () => {
    const ids = operations(doc).map(([, , operation]) => operation.operationId);
    for (const id of ids) expect(id).to.be.a('string').that.is.not.empty;
    expect(new Set(ids).size).to.equal(ids.length);
  });

  it('documents a JSON schema for every 2xx response that has a body, and at least one 2xx per operation', () => {
    for (const [method, path, operation] of operations(doc)) {
      const success = Object.entries(operation.responses).filter(([status]) => is2xx(status));
      expect(success, `${method} ${path}`).to.not.be.empty;
      for (const [status, response] of success) {
        const emptyCreated = status === '201' && EMPTY_201.has(`${method.toUpperCase()} ${path.slice(PREFIX.length)}`);
        if (status === '204' || emptyCreated)
          expect(response, `${method} ${path} ${status}`).to.not.have.property('content');
        else expect(response.content?.['application/json']?.schema, `${method} ${path} ${status}`).to.be.an('object');
      }
    }
  });

  it('documents the Idempotency-Key header (and idempotency_key body field) on POST /customers', () => {
    const create = doc.paths[`${PREFIX}/customers`].post as Operation;
    const header = create.parameters.find((parameter) => parameter.name === 'Idempotency-Key');
    expect(header, 'Idempotency-Key parameter').to.include({ in: 'header', required: false });
    expect(header!.schema).to.include({ type: 'string' });
    const body = create.requestBody.content['application/json'].schema;
    expect(body.properties).to.have.property('idempotency_key');
    expect(body.required ?? []).to.not.include('idempotency_key');
  });

  it('refers every 4xx and 5xx response to the Error schema (unless the route declares its own), which requires the envelope fields', () => {
    const error = doc.components.schemas.Error;
    expect(error.required).to.deep.equal(['error']);
    expect(error.properties.error.required).to.have.members(['type', 'code', 'message', 'request_id', 'timestamp']);
    expect(error.properties.error.properties).to.have.all.keys([
      'type',
      'code',
      'message',
      'details',
      'request_id',
      'timestamp',
    ]);
    // Health probes declare their own 503 (a Health report, not the error envelope, per Document 1).
    const ownStatuses = new Map(
      ROUTES.map((route) => [`${route.method} ${openApiPath(route.path)}`, Object.keys(route.responses)]),
    );
    for (const [method, path, operation] of operations(doc)) {
      const own = ownStatuses.get(`${method} ${path}`) ?? [];
      const failures = Object.entries(operation.responses).filter(
        ([status]) => Number(status) >= 400 && !own.includes(status),
      );
      expect(failures, `${method} ${path}`).to.not.be.empty;
      for (const [status, response] of failures) {
        expect(response.content?.['application/json']?.schema, `${method} ${path} ${status}`).to.deep.equal({
          $ref: ERROR_REF,
        });
      }
    }
    const create = doc.paths[`${PREFIX}/customers`].post as Operation;
    expect(create.responses).to.include.keys(['400', '401', '403', '409', '429', '500']);
  });

  it('matches real responses: a customer list, a created customer and an error validate against their documented schemas', async () => {
    const ajv = new Ajv({ strict: false, validateFormats: false, allErrors: true });
    ajv.addSchema(doc, 'openapi');
    const validatorFor = (path: string, method: string, status: number) =>
      ajv.compile({
        $ref: `openapi#/${pointer('paths', path, method, 'responses', String(status), 'content', 'application/json', 'schema')}`,
      });

    const { merchant_secret_key: key } = await createTenant();
    const created = await api.post('/customers', { key, body: customerInput() });
    expectWrapped(created, 201);
    const list = await api.get('/customers', { key });
    const invalid = await api.post('/customers', { key, body: {} });
    const checks: Array<[unknown, ReturnType<typeof validatorFor>]> = [
      [created.body, validatorFor(`${PREFIX}/customers`, 'post', 201)],
      [list.body, validatorFor(`${PREFIX}/customers`, 'get', 200)],
      [invalid.body, validatorFor(`${PREFIX}/customers`, 'post', 400)],
    ];
    for (const [body, validate] of checks) expect(validate(body), JSON.stringify(validate.errors)).to.equal(true);
  });
});
