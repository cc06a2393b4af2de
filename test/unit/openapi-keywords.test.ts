/**
 * Rule: the published OpenAPI document speaks only JSON Schema 2020-12 and OpenAPI 3.1; a keyword of our own (the
 * serialized-size limit ajv enforces) travels as an `x-` extension, which every OpenAPI tool accepts and ignores.
 * Redocly's recommended ruleset checks the whole document (`npm run lint:openapi`); this names the keyword at fault.
 */
import { expect } from 'chai';
import type { TSchema } from '@sinclair/typebox';
import { apiRoutesAndDocument } from '../../api/app';
import { ROUTES } from '../../api/app';
import { bodySchemaOf } from '../../api/http/route-runner';
import { bodyAjv, MAX_SERIALIZED_BYTES, toFieldErrors } from '../../api/http/schema';

type Json = Record<string, any>;

const JSON_SCHEMA_KEYWORDS = new Set(
  [
    '$schema $id $ref $defs $anchor $dynamicRef $dynamicAnchor $comment $vocabulary',
    'type enum const multipleOf maximum exclusiveMaximum minimum exclusiveMinimum maxLength minLength pattern',
    'maxItems minItems uniqueItems maxContains minContains maxProperties minProperties required dependentRequired',
    'allOf anyOf oneOf not if then else dependentSchemas prefixItems items contains properties patternProperties',
    'additionalProperties propertyNames unevaluatedItems unevaluatedProperties',
    'format contentEncoding contentMediaType contentSchema title description default deprecated readOnly writeOnly',
    'examples discriminator xml externalDocs example',
  ].flatMap((line) => line.split(' ')),
);
const SCHEMA_MAPS = ['properties', 'patternProperties', '$defs', 'dependentSchemas'];
const SCHEMA_LISTS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
const SCHEMA_VALUES = ['items', 'additionalProperties', 'not', 'if', 'then', 'else', 'contains', 'propertyNames'];

/** Every keyword of `schema` and its subschemas that is neither JSON Schema's, OpenAPI's nor an extension. */
function foreignKeywords(schema: unknown, at: string, out: string[] = []): string[] {
  if (!schema || typeof schema !== 'object') return out;
  const node = schema as Json;
  for (const key of Object.keys(node)) {
    if (!JSON_SCHEMA_KEYWORDS.has(key) && !key.startsWith('x-')) out.push(`${at}/${key}`);
  }
  for (const key of SCHEMA_MAPS)
    for (const [name, sub] of Object.entries((node[key] ?? {}) as Json))
      foreignKeywords(sub, `${at}/${key}/${name}`, out);
  for (const key of SCHEMA_LISTS)
    ((node[key] ?? []) as unknown[]).forEach((sub, index) => foreignKeywords(sub, `${at}/${key}/${index}`, out));
  for (const key of SCHEMA_VALUES) foreignKeywords(node[key], `${at}/${key}`, out);
  return out;
}

/** The schemas of an operation: its parameters', its request body's and its responses'. */
function schemasOf(operation: Json): Array<[string, unknown]> {
  const content = (holder: Json | undefined, at: string) =>
    Object.entries((holder?.content ?? {}) as Json).map(([type, media]): [string, unknown] => [
      `${at}/${type}`,
      (media as Json).schema,
    ]);
  return [
    ...((operation.parameters ?? []) as Json[]).map((p): [string, unknown] => [`parameter ${p.name}`, p.schema]),
    ...content(operation.requestBody, 'requestBody'),
    ...Object.entries(operation.responses as Json).flatMap(([status, response]) =>
      content(response as Json, `responses/${status}`),
    ),
  ];
}

describe('Rule: the published OpenAPI document holds only JSON Schema and OpenAPI keywords, ours as x- extensions', () => {
  it('no schema of any operation or component carries a keyword of our own under a plain name', () => {
    const { openApi } = apiRoutesAndDocument();
    const doc = openApi as Json;
    const found = [
      ...Object.entries(doc.paths as Json).flatMap(([path, item]) =>
        Object.entries(item as Json).flatMap(([method, operation]) =>
          schemasOf(operation as Json).flatMap(([at, schema]) => foreignKeywords(schema, `${method} ${path} ${at}`)),
        ),
      ),
      ...Object.entries(doc.components.schemas as Json).flatMap(([name, schema]) =>
        foreignKeywords(schema, `components/schemas/${name}`),
      ),
    ];
    expect(found).to.deep.equal([]);
  });
});

/** Every subschema of a request body that carries the serialized-size limit, with the field path that reaches it. */
function sizeLimited(schema: unknown, at: string, out: Array<{ at: string; schema: Json }> = []) {
  if (!schema || typeof schema !== 'object') return out;
  const node = schema as Json;
  if (typeof node[MAX_SERIALIZED_BYTES] === 'number') out.push({ at, schema: node });
  for (const [name, sub] of Object.entries((node.properties ?? {}) as Json)) sizeLimited(sub, `${at}.${name}`, out);
  for (const key of ['anyOf', 'oneOf', 'allOf'])
    for (const sub of (node[key] ?? []) as Json[]) sizeLimited(sub, at, out);
  return out;
}

describe('Rule: a size-limited request field refuses a value over its limit, counted in UTF-8 bytes once serialized', () => {
  const fields = ROUTES.flatMap((route) =>
    sizeLimited(bodySchemaOf(route), 'body').map((field) => ({ ...field, route: `${route.method} ${route.path}` })),
  );

  it('metadata and connector credentials carry the limit on the routes that take them', () => {
    const labels = fields.map(({ route, at }) => `${route} ${at}`);
    expect(labels).to.include.members([
      'post /customers body.metadata',
      'post /transactions body.metadata',
      'post /merchants/:merchant_id/connectors body.credentials',
      'post /checkout-sessions body.customer.metadata',
    ]);
  });

  it('accepts a value of exactly the limit and refuses one byte more, naming the limit', () => {
    for (const { route, at, schema } of fields) {
      const limit = schema[MAX_SERIALIZED_BYTES] as number;
      const validate = bodyAjv.compile(schema as TSchema);
      // {"k": "xx…"} of exactly `bytes` bytes once serialized, in one- or two-byte characters.
      const sized = (bytes: number, char = 'x') => ({
        k: char.repeat((bytes - '{"k":""}'.length) / Buffer.byteLength(char)),
      });
      expect(validate(sized(limit)), `${route} ${at} at ${limit} bytes`).to.equal(true);
      expect(validate(sized(limit + 1)), `${route} ${at} at ${limit + 1} bytes`).to.equal(false);
      expect(toFieldErrors(validate.errors, at)).to.deep.equal({
        [at]: [`must be at most ${limit} bytes when serialized`],
      });
      // Two-byte characters: fewer characters than the limit, more bytes.
      expect(validate(sized(limit + 2, 'é')), `${route} ${at} in UTF-8`).to.equal(false);
    }
  });
});
