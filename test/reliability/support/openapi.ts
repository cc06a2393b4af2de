/**
 * The OpenAPI document as the reliability parts read it: its operations, and a minimal valid value for a
 * schema (every required field, the first enum value, a value of the declared format) so a generated request
 * passes validation and reaches the code behind it.
 */
import { randomUUID } from 'node:crypto';
import { api } from '../../helpers/http';

export const PREFIX = '/api/v1';
const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

export type Json = Record<string, any>;

export interface Operation {
  method: (typeof METHODS)[number];
  /** As in the document, e.g. /api/v1/customers/{customerId}. */
  path: string;
  operation: Json;
  label: string;
}

export async function fetchOpenApi(): Promise<Json> {
  const res = await api.get('/openapi.json');
  if (res.status !== 200) throw new Error(`GET /openapi.json answered ${res.status}`);
  return res.body as Json;
}

export function operationsOf(doc: Json): Operation[] {
  return Object.entries(doc.paths as Record<string, Json>).flatMap(([path, item]) =>
    METHODS.filter((method) => item[method]).map((method) => ({
      method,
      path,
      operation: item[method] as Json,
      label: `${method.toUpperCase()} ${path}`,
    })),
  );
}

export const pathParamsOf = (path: string) => [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]);

export function bodySchemaOf(operation: Json): Json | undefined {
  return operation.requestBody?.content?.['application/json']?.schema as Json | undefined;
}

export function queryNamesOf(operation: Json): string[] {
  return ((operation.parameters ?? []) as Json[]).filter((p) => p.in === 'query').map((p) => p.name as string);
}

/** Which credentials an operation takes: its security scheme and, for API keys, the key levels. */
export function credentialKindOf(operation: Json): 'none' | 'publicKey' | 'dashboardToken' | 'apiKey' {
  const security = operation.security as Json[] | undefined;
  if (security && security.length === 0) return 'none';
  if (security?.some((entry) => 'publicKey' in entry)) return 'publicKey';
  if (security?.some((entry) => 'dashboardToken' in entry)) return 'dashboardToken';
  return 'apiKey';
}

function resolve(doc: Json, schema: Json): Json {
  let current = schema;
  while (current?.$ref) {
    const parts = (current.$ref as string).replace(/^#\//, '').split('/');
    current = parts.reduce((node: Json, part) => node[part.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
  }
  return current;
}

/** Supplies real ids for body fields that name a resource (e.g. offer_id), so a body reaches the lookup. */
export type IdFor = (field: string) => string | undefined;

/**
 * The smallest value the schema accepts: required fields only, the first enum value, a value of the declared
 * format or id pattern; `idFor` fills fields that name a resource with a real id. Cross-field rules are not
 * modelled (best effort).
 */
export function minimalValue(doc: Json, input: Json, idFor?: IdFor): unknown {
  const schema = resolve(doc, input);
  if (!schema || typeof schema !== 'object') return null;
  if ('const' in schema) return schema.const;
  if ('default' in schema && schema.default !== undefined) return schema.default;
  if (Array.isArray(schema.enum)) return schema.enum.find((value: unknown) => value !== null) ?? schema.enum[0];
  const options = (schema.anyOf ?? schema.oneOf) as Json[] | undefined;
  if (options) {
    const nonNull = options.find((option) => resolve(doc, option)?.type !== 'null');
    return minimalValue(doc, nonNull ?? options[0], idFor);
  }
  if (schema.allOf) return Object.assign({}, ...(schema.allOf as Json[]).map((part) => minimalValue(doc, part, idFor)));
  const type = Array.isArray(schema.type) ? schema.type.find((t: string) => t !== 'null') : schema.type;
  switch (type) {
    case 'object': {
      const out: Json = {};
      for (const name of (schema.required ?? []) as string[])
        out[name] = idFor?.(name) ?? minimalValue(doc, (schema.properties ?? {})[name] ?? {}, idFor);
      return out;
    }
    case 'array':
      return Array.from({ length: schema.minItems ?? 0 }, () => minimalValue(doc, schema.items ?? {}, idFor));
    case 'integer':
    case 'number':
      return schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : 1);
    case 'boolean':
      return true;
    case 'null':
      return null;
    case 'string': {
      switch (schema.format) {
        case 'email':
          return `sweep.${randomUUID().slice(0, 8)}@example.com`;
        case 'date-time':
          return new Date(Date.now() + 86_400_000).toISOString();
        case 'date':
          return '2030-01-01';
        case 'uri':
        case 'url':
          return 'https://example.com/reliability';
        case 'uuid':
          return randomUUID();
        case 'iso-4217':
          return 'USD';
        case 'iso-3166-alpha-2':
          return 'US';
      }
      // Id patterns: "^prd_[0-9A-Za-z]+$" → a well-formed id that names nothing.
      const prefix = /^\^([a-z]+_)\[/.exec(String(schema.pattern ?? ''))?.[1];
      if (prefix) return `${prefix}${randomUUID().replace(/-/g, '').slice(0, 24)}`;
      const length = Math.max(schema.minLength ?? 1, 1);
      return 'x'.repeat(Math.min(length, schema.maxLength ?? length));
    }
    default:
      return {};
  }
}
