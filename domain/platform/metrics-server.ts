/**
 * One Prometheus endpoint (GET /metrics, text format) per process role, on its own port: the API's on
 * API_METRICS_PORT, the worker's on WORKER_METRICS_PORT, loopback by default (never the public API's port, so a
 * scrape is not an API request and the Internet never sees it).
 */
import { createServer, type Server } from 'node:http';
import type { Registry } from 'prom-client';
import { processMetrics } from './metrics';

export interface RunningMetricsServer {
  url: string;
  stop(): Promise<void>;
}

/** Whether an endpoint of this process already serves processMetrics (the first one opened does). */
let processMetricsServed = false;

/**
 * Serves `registry` (and, on the first endpoint of the process, processMetrics) on host:port. `beforeScrape` runs
 * before each scrape: gauges read from the database, buffered metrics drained.
 */
export async function startMetricsServer(options: {
  registry: Registry;
  host: string;
  port: number;
  beforeScrape?: () => Promise<void>;
}): Promise<RunningMetricsServer> {
  const ownsProcessMetrics = !processMetricsServed;
  processMetricsServed = true;
  // Concatenated at each scrape rather than merged once: metrics registered later (the Temporal SDK's, created as
  // they first appear) are served too.
  const registries = ownsProcessMetrics ? [processMetrics, options.registry] : [options.registry];
  const server: Server = createServer((request, response) => {
    if (request.method !== 'GET' || request.url?.split('?')[0] !== '/metrics') {
      response.writeHead(404).end();
      return;
    }
    void (async () => {
      try {
        await options.beforeScrape?.();
        const texts = await Promise.all(registries.map((registry) => registry.metrics()));
        response.writeHead(200, { 'Content-Type': options.registry.contentType }).end(texts.join('\n'));
      } catch {
        response.writeHead(500).end();
      }
    })();
  });
  server.listen(options.port, options.host);
  await new Promise<void>((resolve, reject) => server.once('listening', resolve).once('error', reject));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  return {
    url: `http://${options.host.includes(':') ? `[${options.host}]` : options.host}:${port}/metrics`,
    stop: () =>
      new Promise<void>((resolve) => {
        if (ownsProcessMetrics) processMetricsServed = false;
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
