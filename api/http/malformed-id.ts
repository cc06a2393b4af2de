/**
 * A malformed id in the path can never name an existing resource, so it is a 404 — with the code the resource's
 * own lookup gives an unknown id (Document 3: "404 ORDER_NOT_FOUND", "404 PAYMENT_INSTRUMENT_NOT_FOUND"), not the
 * generic RESOURCE_NOT_FOUND, so a client branching on the code sees one answer for "no such order".
 */
import type { TObject, TSchema } from '@sinclair/typebox';
import { errors } from '../../domain/platform/errors';

/** The not-found code of each id prefix whose lookup has its own (the services use the same codes). */
const NOT_FOUND_CODE_OF_PREFIX: Record<string, string> = {
  ord: 'ORDER_NOT_FOUND',
  pi: 'PAYMENT_INSTRUMENT_NOT_FOUND',
  tx: 'TRANSACTION_NOT_FOUND',
  ref: 'REFUND_NOT_FOUND',
  sub: 'SUBSCRIPTION_NOT_FOUND',
};

const prefixOf = (schema: TSchema): string | undefined =>
  typeof schema.pattern === 'string' ? /^\^([a-z]+)_/.exec(schema.pattern)?.[1] : undefined;

/** The 404 for path parameters that failed validation: named after the first malformed id that has a code. */
export function malformedIdError(paramsSchema: TSchema | undefined, params: Record<string, unknown>) {
  const properties = (paramsSchema as TObject | undefined)?.properties ?? {};
  for (const [name, schema] of Object.entries(properties)) {
    const pattern = typeof schema.pattern === 'string' ? new RegExp(schema.pattern) : null;
    const value = params[name];
    const malformed = typeof value !== 'string' || (pattern !== null && !pattern.test(value));
    if (!malformed) continue;
    const code = NOT_FOUND_CODE_OF_PREFIX[prefixOf(schema) ?? ''];
    return code ? errors.notFound('The resource does not exist', code) : errors.notFound();
  }
  return errors.notFound();
}
