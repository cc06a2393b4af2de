/**
 * The OpenAPI document explains itself: every operation has a description, every money field says
 * it is in minor units, the main create endpoints carry a request example that their own schema accepts, and
 * `servers` names the deployment. Built from ROUTES, no stack.
 */
import { expect } from 'chai';
import { ROUTES } from '../../api/app';
import { buildOpenApi } from '../../api/http/openapi';
import { bodyAjv } from '../../api/http/schema';

type Json = Record<string, any>;
const METHODS = ['get', 'post', 'put', 'patch', 'delete'];
const SERVER = 'https://api.example.com';

const doc: Json = buildOpenApi(ROUTES, '/api/v1', SERVER);
const operations = Object.entries(doc.paths as Record<string, Json>).flatMap(([path, item]) =>
  Object.entries(item)
    .filter(([method]) => METHODS.includes(method))
    .map(([method, operation]) => ({ label: `${method.toUpperCase()} ${path}`, operation: operation as Json })),
);

/** A property whose name says it holds money. */
const MONEY_NAME = /(^|_)amount($|_)|[a-z]Amount$|^amount[A-Z]|(^|_)fee$|^dueToday$|(^|_)(price|total)_?(amount)?$/;

/** Every property schema of `schema` (nested objects, arrays, unions), with the path that reaches it. */
function properties(schema: unknown, at: string, out: Array<{ at: string; name: string; schema: Json }> = []) {
  if (!schema || typeof schema !== 'object') return out;
  const node = schema as Json;
  for (const [name, property] of Object.entries((node.properties ?? {}) as Record<string, Json>)) {
    out.push({ at: `${at}.${name}`, name, schema: property });
    properties(property, `${at}.${name}`, out);
  }
  if (node.items) properties(node.items, `${at}[]`, out);
  for (const key of ['anyOf', 'oneOf', 'allOf'])
    for (const branch of (node[key] ?? []) as Json[]) properties(branch, at, out);
  return out;
}

const isInteger = (schema: Json): boolean =>
  schema.type === 'integer' ||
  (Array.isArray(schema.type) && schema.type.includes('integer')) ||
  ((schema.anyOf ?? []) as Json[]).some(isInteger);
const descriptionOf = (schema: Json): string =>
  [schema.description, ...((schema.anyOf ?? []) as Json[]).map((branch) => branch.description)]
    .filter(Boolean)
    .join(' ');

/** Request bodies, parameters and 2xx responses of every operation. */
function schemasOf(operation: Json): Array<{ at: string; schema: Json }> {
  const found: Array<{ at: string; schema: Json }> = [];
  const body = operation.requestBody?.content?.['application/json']?.schema;
  if (body) found.push({ at: 'body', schema: body });
  for (const parameter of (operation.parameters ?? []) as Json[])
    found.push({
      at: `${parameter.in} ${parameter.name}`,
      schema: { properties: { [parameter.name]: parameter.schema } },
    });
  for (const [status, response] of Object.entries((operation.responses ?? {}) as Record<string, Json>)) {
    const schema = response.content?.['application/json']?.schema;
    if (schema && Number(status) < 300) found.push({ at: `response ${status}`, schema });
  }
  return found;
}

/** The main create endpoints an integrator starts with: each shows a request example. */
const MAIN_FLOWS = [
  'POST /api/v1/customers',
  'POST /api/v1/transactions',
  'POST /api/v1/transactions/{transactionId}/capture',
  'POST /api/v1/transactions/{transactionId}/refunds',
  'POST /api/v1/checkout-sessions',
  'POST /api/v1/merchants/{merchant_id}/subscriptions/{subscription_id}/change-offer',
  'POST /api/v1/merchants/{merchant_id}/subscriptions/{subscription_id}/cancel',
  'POST /api/v1/merchants/{merchant_id}/webhook-configs',
  'POST /api/v1/merchants/{merchant_id}/connectors',
  'POST /api/v1/org/connectors',
];

describe('OpenAPI document: descriptions, minor units, examples, servers', () => {
  it('gives every operation a description that says more than its summary, including how to authenticate', () => {
    expect(operations.length).to.be.greaterThan(100);
    for (const { label, operation } of operations) {
      expect(operation.description, `${label} has no description`).to.be.a('string');
      expect(operation.description.length, `${label}: description is only the summary`).to.be.greaterThan(
        String(operation.summary).length + 20,
      );
      expect(operation.description, label).to.include('**Authentication:**');
    }
  });

  it('writes a description of their own (not only the summary) for the main flows', () => {
    const found = new Set(operations.map((entry) => entry.label));
    for (const label of MAIN_FLOWS) {
      expect(found.has(label), `${label} is not in the document`).to.equal(true);
      const { operation } = operations.find((entry) => entry.label === label)!;
      const ownWords = String(operation.description).split('\n\n')[0];
      expect(ownWords.length, `${label}: no description beyond the summary`).to.be.greaterThan(
        String(operation.summary).length + 40,
      );
    }
  });

  it('says every money field is an integer in minor units, with an example of the scale', () => {
    const offenders: string[] = [];
    let seen = 0;
    for (const { label, operation } of operations) {
      for (const { at, schema } of schemasOf(operation)) {
        for (const property of properties(schema, at)) {
          if (!MONEY_NAME.test(property.name) || !isInteger(property.schema)) continue;
          seen += 1;
          const description = descriptionOf(property.schema);
          if (!/minor units/i.test(description) || !description.includes('1000 = 10.00'))
            offenders.push(`${label} ${property.at}: "${description}"`);
        }
      }
    }
    expect(seen, 'no money field found: the name pattern is wrong').to.be.greaterThan(50);
    expect(offenders, offenders.join('\n')).to.deep.equal([]);
  });

  it('shows a request example on each main create endpoint', () => {
    for (const label of MAIN_FLOWS) {
      const { operation } = operations.find((entry) => entry.label === label)!;
      expect(operation.requestBody?.content?.['application/json']?.example, `${label} has no example`).to.be.an(
        'object',
      );
    }
  });

  it('validates every request example against its own schema', () => {
    let examples = 0;
    for (const { label, operation } of operations) {
      const content = operation.requestBody?.content?.['application/json'];
      if (content?.example === undefined) continue;
      examples += 1;
      const validate = bodyAjv.compile(content.schema);
      // ajv fills in defaults: validate a copy, so the document keeps the example as written.
      const valid = validate(structuredClone(content.example));
      expect(valid, `${label}: ${JSON.stringify(validate.errors)}`).to.equal(true);
    }
    expect(examples).to.be.at.least(MAIN_FLOWS.length);
  });

  it('shows a response example for creating a customer, a charge and a refund, each valid against its response schema', () => {
    const shown = [
      ['POST /api/v1/customers', '201'],
      ['POST /api/v1/transactions', '201'],
      ['POST /api/v1/transactions/{transactionId}/refunds', '201'],
    ];
    for (const [label, status] of shown) {
      const { operation } = operations.find((entry) => entry.label === label)!;
      expect(operation.responses[status].content['application/json'].example, `${label} ${status}`).to.be.an('object');
    }
    let examples = 0;
    for (const { label, operation } of operations) {
      for (const [status, response] of Object.entries((operation.responses ?? {}) as Record<string, Json>)) {
        const content = response.content?.['application/json'];
        if (content?.example === undefined) continue;
        examples += 1;
        const validate = bodyAjv.compile({ ...content.schema, components: doc.components });
        const valid = validate(structuredClone(content.example));
        expect(valid, `${label} ${status}: ${JSON.stringify(validate.errors)}`).to.equal(true);
      }
    }
    expect(examples).to.be.at.least(shown.length);
  });

  it('marks page and limit as optional (they have defaults), e.g. on GET /merchants/{merchant_id}/members', () => {
    const members = doc.paths['/api/v1/merchants/{merchant_id}/members'].get;
    const byName = new Map((members.parameters as Json[]).map((parameter) => [parameter.name, parameter]));
    expect(byName.get('page')).to.include({ required: false });
    expect(byName.get('limit')).to.include({ required: false });
    for (const { label, operation } of operations) {
      for (const parameter of (operation.parameters ?? []) as Json[]) {
        if (parameter.in === 'query' && parameter.schema?.default !== undefined)
          expect(parameter.required, `${label} ${parameter.name}`).to.equal(false);
      }
    }
  });

  it('names the deployment in servers and describes every tag and the money convention', () => {
    expect(doc.servers).to.deep.equal([{ url: SERVER, description: 'This deployment (PUBLIC_BASE_URL)' }]);
    expect(doc.info.description).to.match(/minor units/);
    const used = new Set(operations.flatMap(({ operation }) => operation.tags as string[]));
    const described = new Map((doc.tags as Json[]).map((tag) => [tag.name, tag.description]));
    for (const tag of used) expect(described.get(tag), `tag ${tag}`).to.be.a('string').and.not.equal('');
  });
});
