/**
 * The load generator's process: autocannon runs here, never in a process it measures (a generator sharing the
 * event loop of the server it loads slows a light server far more than a heavy one, and shows up in its profile).
 * Scenario options must be plain data: UNIQUE in the body or a header value is replaced, in every request, by a
 * number no other request of this process gets.
 */
import autocannon from 'autocannon';
import { serveParent } from './child';

/** Replaced in each request's body and header values by a number of its own (a fresh email, Idempotency-Key). */
export const UNIQUE = '{{unique}}';
let sequence = 0;

/** The options, with a setupRequest that makes each request unique when they name UNIQUE. */
function withUniqueRequests(options: autocannon.Options): autocannon.Options {
  const { method = 'GET', headers = {}, body } = options;
  const named = typeof body === 'string' && body.includes(UNIQUE);
  if (!named && !Object.values(headers).some((value) => value.includes(UNIQUE))) return options;
  return {
    ...options,
    requests: [
      {
        method,
        setupRequest: (request) => {
          const unique = String(++sequence);
          return {
            ...request,
            headers: Object.fromEntries(
              Object.entries(headers).map(([name, value]) => [name, value.replaceAll(UNIQUE, unique)]),
            ),
            body: typeof body === 'string' ? body.replaceAll(UNIQUE, unique) : body,
          };
        },
      },
    ],
  };
}

export interface LoadResult {
  requestsAverage: number;
  requestsTotal: number;
  duration: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  statusCodeStats: Record<string, { count: number }>;
}

if (require.main === module) {
  serveParent(
    async (options) => {
      const result = await autocannon(withUniqueRequests(options as autocannon.Options));
      const answer: LoadResult = {
        requestsAverage: result.requests.average,
        requestsTotal: result.requests.total,
        duration: result.duration,
        p50: result.latency.p50,
        p99: result.latency.p99,
        non2xx: result.non2xx,
        errors: result.errors,
        timeouts: result.timeouts,
        statusCodeStats: result.statusCodeStats,
      };
      return answer;
    },
    async () => undefined,
  );
  process.send?.({ ready: true });
}
