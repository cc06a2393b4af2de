/**
 * Calls `onStatement` with every SQL statement any pg client of this process sends (API, worker and outbox listener
 * share the driver in the test stack), whitespace collapsed: the counting probes' one tap on the driver.
 */
import { stack } from '../test/helpers/stack';

type Query = (this: object, ...args: unknown[]) => unknown;

export function tapStatements(onStatement: (connection: object, sql: string) => void): void {
  const knexClient = stack().orm.em.getConnection().getKnex().client as unknown as {
    driver: { Client: { prototype: { query: Query } } };
  };
  const prototype = knexClient.driver.Client.prototype;
  const originalQuery = prototype.query;
  prototype.query = function (this: object, ...args: unknown[]) {
    const first = args[0] as string | { text?: string };
    onStatement(this, (typeof first === 'string' ? first : (first?.text ?? '?')).replace(/\s+/g, ' ').trim());
    return originalQuery.apply(this, args);
  };
}
