/** The slice of autocannon 8's programmatic API the bench uses (the package ships no types). */
declare module 'autocannon' {
  function autocannon(options: autocannon.Options): Promise<autocannon.Result>;

  namespace autocannon {
    interface Request {
      method?: string;
      path?: string;
      headers?: Record<string, string>;
      body?: string | Buffer;
      /** Called before every request; returns the request to send. */
      setupRequest?: (request: Request, context: Record<string, unknown>) => Request;
    }

    interface Options {
      url: string;
      connections?: number;
      /** Seconds. */
      duration?: number;
      /** Requests in all; the run ends when they have all been answered (instead of after `duration`). */
      amount?: number;
      method?: string;
      headers?: Record<string, string>;
      body?: string | Buffer;
      requests?: Request[];
    }

    /** Latencies in milliseconds, requests per second. */
    interface Histogram {
      average: number;
      p50: number;
      p99: number;
    }

    interface Result {
      /** Seconds the run took. */
      duration: number;
      requests: Histogram & { total: number };
      latency: Histogram;
      non2xx: number;
      errors: number;
      timeouts: number;
      statusCodeStats: Record<string, { count: number }>;
    }
  }

  export = autocannon;
}
