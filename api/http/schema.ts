/**
 * Shared JSON Schema fragments (TypeBox) and the ajv instances that compile them. Request schemas are
 * declared next to their routes; these are the pieces every area reuses. Before any of them walks a parsed body,
 * its JSON nesting is bounded (requireBoundedJsonDepth).
 */
import {
  Type,
  type IntegerOptions,
  type Static,
  type TSchema,
  type TProperties,
  type TObject,
  type ObjectOptions,
} from '@sinclair/typebox';
import type { Context } from 'koa';
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { isCountry, isCurrency } from '../lib/iso';
import { errors, type FieldErrors } from '../../domain/platform/errors';
import { NOT_PLAIN_TEXT } from '../../domain/mail/mail.names';
import { MAX_PAGE } from './pagination';

/**
 * The most bytes a JSON value (metadata, connector credentials) may take once serialized, in UTF-8. ajv enforces it;
 * JSON Schema has no such keyword, so it carries an `x-` name: the published OpenAPI document stays valid and still
 * states the limit (test/unit/openapi-keywords.test.ts).
 */
export const MAX_SERIALIZED_BYTES = 'x-max-serialized-bytes';

function createAjv(coerce: boolean): Ajv {
  // verbose: an error carries its data and schema, so messages can hint at the fix (toFieldErrors).
  const ajv = new Ajv({
    allErrors: true,
    verbose: true,
    useDefaults: true,
    coerceTypes: coerce ? 'array' : false,
    strict: false,
  });
  addFormats(ajv, ['date-time', 'email', 'uri']);
  ajv.addFormat('iso-4217', { type: 'string', validate: isCurrency });
  ajv.addFormat('iso-3166-alpha-2', { type: 'string', validate: isCountry });
  ajv.addFormat('single-line', { type: 'string', validate: (text: string) => !NOT_PLAIN_TEXT.test(text) });
  ajv.addKeyword({
    keyword: MAX_SERIALIZED_BYTES,
    type: 'object',
    schemaType: 'number',
    validate: (max: number, data: unknown) => Buffer.byteLength(JSON.stringify(data), 'utf8') <= max,
    error: { message: (cxt) => `must be at most ${cxt.schema} bytes when serialized` },
  });
  return ajv;
}

/** Bodies are typed JSON: no coercion. Query strings and path params arrive as text: coerce. */
export const bodyAjv = createAjv(false);
export const textAjv = createAjv(true);

const FORMAT_MESSAGES: Record<string, string> = {
  'date-time': 'must be an ISO 8601 date-time',
  email: 'must be a valid email address',
  uri: 'must be a valid URL',
  'iso-4217': 'must be an ISO 4217 currency code',
  'iso-3166-alpha-2': 'must be an ISO 3166-1 alpha-2 country code',
  'single-line': 'must be one line of plain text: no line breaks, tabs, control characters or bidi overrides',
};

/** The known property nearest to an unknown one (a prefix of it, or one or two letters apart), if any. */
function nearestName(unknown: string, known: string[]): string | undefined {
  const distance = (a: string, b: string) => {
    let row = Array.from({ length: b.length + 1 }, (_, j) => j);
    for (let i = 1; i <= a.length; i += 1) {
      const next = [i];
      for (let j = 1; j <= b.length; j += 1)
        next[j] = Math.min(row[j] + 1, next[j - 1] + 1, row[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      row = next;
    }
    return row[b.length];
  };
  const scored = known
    .map((name) => ({
      name,
      score: name.startsWith(unknown) || unknown.startsWith(name) ? 0 : distance(unknown, name),
    }))
    .filter((candidate) => candidate.score <= 2)
    .sort((a, b) => a.score - b.score);
  return scored[0]?.name;
}

/** A message that says how to fix what a keyword refused, where the value or the schema tells. */
function hinted(error: ErrorObject, path: string): string | undefined {
  const data: unknown = error.data;
  if (error.keyword === 'format' && (error.params as { format: string }).format === 'iso-4217') {
    if (typeof data === 'string' && /^[a-z]{3}$/i.test(data) && data !== data.toUpperCase())
      return `must be upper-case: ${data.toUpperCase()}`;
  }
  if (error.keyword === 'type' && (error.params as { type: string }).type === 'integer' && /amount$/.test(path))
    return 'must be an integer in minor units (1990 for 19.90)';
  if (error.keyword === 'additionalProperties') {
    const known = Object.keys((error.parentSchema as { properties?: object } | undefined)?.properties ?? {});
    const nearest = nearestName((error.params as { additionalProperty: string }).additionalProperty, known);
    return nearest ? `is not allowed; did you mean ${nearest}?` : undefined;
  }
  return undefined;
}

/** ajv errors → Document 1's validation details: field path → messages. */
export function toFieldErrors(ajvErrors: ErrorObject[] | null | undefined, root?: string): FieldErrors {
  const details: FieldErrors = {};
  const add = (field: string, message: string) => {
    const key = field || root || 'body';
    const messages = (details[key] ??= []);
    if (!messages.includes(message)) messages.push(message);
  };
  for (const error of ajvErrors ?? []) {
    let path = error.instancePath.slice(1).replace(/\//g, '.');
    // A query parameter is one field even when repeated: name `status`, not `status.1`.
    if (root === 'query') path = path.replace(/\.\d+$/, '');
    const join = (name: string) => (path ? `${path}.${name}` : name);
    // ajv types every keyword's params as any; these are the shapes of the keywords read here.
    const params = error.params as {
      missingProperty: string;
      additionalProperty: string;
      format: string;
      allowedValues: unknown[];
    };
    const hint = hinted(error, path);
    if (error.keyword === 'required') add(join(params.missingProperty), 'is required');
    else if (error.keyword === 'additionalProperties') add(join(params.additionalProperty), hint ?? 'is not allowed');
    else if (hint) add(path, hint);
    else if (error.keyword === 'format') add(path, FORMAT_MESSAGES[params.format] ?? error.message ?? 'is invalid');
    else if (error.keyword === 'enum') add(path, `must be one of: ${params.allowedValues.join(', ')}`);
    else add(path, error.message ?? 'is invalid');
  }
  return details;
}

/** U+0000, or a UTF-16 surrogate without its pair (JSON can carry both as \u escapes). */
// eslint-disable-next-line no-control-regex -- U+0000 is exactly what this looks for
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
export const UNSTORABLE_TEXT_MESSAGE = 'must not contain the NUL character or an unpaired surrogate';

/**
 * Text PostgreSQL cannot store: it refuses U+0000 in text and jsonb, and unpaired surrogates in jsonb, and the
 * request would end in a 500. Returns the fields (keys or values, at any depth) that carry such text.
 */
export function unstorableTextFields(value: unknown, root: string, path = ''): FieldErrors {
  const details: FieldErrors = {};
  visitText(value, path, root, details);
  return details;
}

/** A module-level function, not a closure per call: every request walks its params, query and body. */
function visitText(node: unknown, at: string, root: string, details: FieldErrors): void {
  if (typeof node === 'string') {
    if (UNSTORABLE.test(node)) details[at || root] = [UNSTORABLE_TEXT_MESSAGE];
  } else if (Array.isArray(node)) {
    for (let index = 0; index < node.length; index += 1) {
      visitText(node[index], at ? `${at}.${index}` : String(index), root, details);
    }
  } else if (node && typeof node === 'object') {
    for (const key of Object.keys(node)) {
      if (UNSTORABLE.test(key)) details[at || root] = [UNSTORABLE_TEXT_MESSAGE];
      visitText((node as Record<string, unknown>)[key], at ? `${at}.${key}` : key, root, details);
    }
  }
}

export function compile(ajv: Ajv, schema: TSchema): ValidateFunction {
  return ajv.compile(schema);
}

// ---- reusable fragments -------------------------------------------------------------------------

/** A strict object: unknown fields are rejected so typos never pass silently. */
export const StrictObject = <T extends TProperties>(properties: T, options: ObjectOptions = {}): TObject<T> =>
  Type.Object(properties, { additionalProperties: false, ...options });

/** What every money field says in the OpenAPI document (test/unit/openapi-descriptions.test.ts checks it). */
export const MINOR_UNITS_NOTE =
  "In the currency's minor units, an integer: 1000 = 10.00 in a two-decimal currency such as BRL or USD (1000 = 1,000 in JPY, which has no minor unit).";

/** A money field: an integer of minor units, described as such; `what` says which amount it is. */
export const Money = (what?: string, options: Omit<IntegerOptions, 'description'> = {}) =>
  Type.Integer({ ...options, description: what ? `${what}. ${MINOR_UNITS_NOTE}` : MINOR_UNITS_NOTE });

/** A name people read in the Dashboard and in platform mail: plain single-line text (NOT_PLAIN_TEXT is refused). */
export const SingleLineName = (options: { maxLength?: number; description?: string } = {}) =>
  Type.String({ minLength: 1, maxLength: 255, format: 'single-line', ...options });

export const Timestamp = Type.String({ format: 'date-time', description: 'ISO 8601 UTC with milliseconds' });
/**
 * `type: [X, 'null']` for simple types keeps validation messages short; anyOf otherwise. An `enum` (StringEnum)
 * must list null too, or the enum keyword would still refuse it.
 */
export const Nullable = <T extends TSchema>(schema: T) =>
  typeof schema.type === 'string'
    ? Type.Unsafe<Static<T> | null>({
        ...schema,
        type: [schema.type, 'null'],
        ...(Array.isArray(schema.enum) ? { enum: [...(schema.enum as unknown[]), null] } : {}),
      })
    : Type.Union([schema, Type.Null()]);
export const StringEnum = <const T extends readonly string[]>(
  values: T,
  options: { description?: string; default?: T[number] } = {},
) => Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
export const Id = (prefix: string) =>
  Type.String({ pattern: `^${prefix}_[0-9A-Za-z]+$`, maxLength: 64, description: `${prefix}_ identifier` });
export const Currency = Type.String({ format: 'iso-4217', minLength: 3, maxLength: 3, description: 'ISO 4217' });
export const Country = Type.String({
  format: 'iso-3166-alpha-2',
  minLength: 2,
  maxLength: 2,
  description: 'ISO 3166-1 alpha-2',
});
export const Metadata = (maxBytes = 5120) =>
  Type.Record(Type.String(), Type.Unknown(), {
    [MAX_SERIALIZED_BYTES]: maxBytes,
    description: `Key/value pairs, at most ${maxBytes} bytes serialized`,
  });
export const E164Phone = Type.String({ pattern: '^\\+[1-9][0-9]{9,14}$', description: 'E.164, at least 10 digits' });

export const PaginationQuery = {
  page: Type.Integer({ minimum: 1, maximum: MAX_PAGE, default: 1 }),
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
};
export const DateRangeQuery = {
  date_from: Type.Optional(Type.String({ format: 'date-time', description: 'Created at or after (inclusive)' })),
  date_to: Type.Optional(Type.String({ format: 'date-time', description: 'Created at or before (inclusive)' })),
};
/** The mode of a transaction, subscription, event or webhook delivery: false for test data. */
export const Livemode = Type.Boolean({
  description:
    'false for test data: a charge on a test-mode connector or of a customer on a test clock, what it started and what reports it',
});
/** The livemode list filter: true lists live data only, false test data only; omitted, both. */
export const LivemodeQuery = {
  livemode: Type.Optional(Type.Boolean({ description: 'true: live data only; false: test data only; omitted: both' })),
};
/** merchant_id targeting for organization keys (query on list/get, body on create). */
export const MerchantIdField = Type.Optional(Id('mrc'));

/** A status-like filter: several values, repeated or comma-separated. */
export const MultiEnum = <const T extends readonly string[]>(values: T) =>
  Type.Array(StringEnum(values), { minItems: 1, 'x-comma-separated': true });

export const PaginationSchema = StrictObject({
  page: Type.Integer(),
  limit: Type.Integer(),
  total: Type.Integer(),
  total_pages: Type.Integer(),
  has_next: Type.Boolean(),
  has_prev: Type.Boolean(),
});

/**
 * JSON nesting is bounded right after the body is parsed, before anything walks it. JSON.parse itself copes with a
 * 120 000-deep array (it fits in the 256 KiB body limit), but every recursive walk after it (schema checks, the
 * idempotency fingerprint, JSON.stringify) throws RangeError: a 500 and an error log per request, reachable with a
 * public key through `metadata`. No documented body nests anywhere near MAX_JSON_DEPTH; metadata values are the
 * merchant's own and get the same bound. The walk here is iterative, so it cannot overflow itself.
 */
export const MAX_JSON_DEPTH = 32;

/** Whether `value` has objects or arrays nested more than `max` levels deep (the top-level body is level 1). */
export function nestsDeeperThan(value: unknown, max: number): boolean {
  const pending: [unknown, number][] = [[value, 1]];
  while (pending.length > 0) {
    const [current, depth] = pending.pop() as [unknown, number];
    if (current === null || typeof current !== 'object') continue;
    if (depth > max) return true;
    for (const child of Object.values(current)) {
      if (child !== null && typeof child === 'object') pending.push([child, depth + 1]);
    }
  }
  return false;
}

/** 400 JSON_TOO_DEEP for a parsed body nested deeper than MAX_JSON_DEPTH. */
export function requireBoundedJsonDepth(ctx: Context): void {
  if (nestsDeeperThan((ctx.request as { body?: unknown }).body, MAX_JSON_DEPTH)) {
    throw errors.badRequest(
      'JSON_TOO_DEEP',
      `The request body nests objects or arrays deeper than ${MAX_JSON_DEPTH} levels`,
    );
  }
}
