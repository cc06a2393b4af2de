/**
 * Runs the API process on its own (docker-compose, production). `npm start` uses startApi() directly so
 * the whole local stack lives in one process.
 */
import { createServer, type Server } from 'node:http';
import type { Server as NetServer } from 'node:net';
import type { Logger } from 'pino';
import { buildApp } from './app';
import { loadConfig, type Config } from '../domain/platform/config';
import type { AppDeps } from './deps';
import { createLogger, flushLogger } from '../domain/platform/logger';
import { connectTemporal, type WorkerConnection } from './temporal/connection';
import { openOrm } from '../db/orm';
import { startAuthCache } from './http/auth';
import { RateLimiter } from './http/rate-limit';
import { inFlightRequests } from './http/request-context';
import { startMetricsServer } from '../domain/platform/metrics-server';
import { apiMetrics } from '../domain/platform/metrics';
import { startTracing } from '../domain/platform/tracing';

/** Beyond the longest wait of a handler on a workflow (WORKFLOW_WAIT_MS), what stop() gives running requests. */
const DRAIN_MARGIN_MS = 5_000;

export interface RunningApi {
  server: Server;
  url: string;
  /** The API's Prometheus endpoint (null when API_METRICS_PORT is off). */
  metricsUrl: string | null;
  deps: AppDeps;
  stop(): Promise<void>;
}

/**
 * `port` is a number, or a listening server whose port the API takes over (a test's reservation, so the port the
 * configuration already names cannot be taken by another process between choosing it and listening).
 */
export async function startApi(
  config: Config,
  port: number | NetServer = config.port,
  options: { logger?: Logger; workerConnection?: WorkerConnection; drainTimeoutMs?: number } = {},
): Promise<RunningApi> {
  const logger = options.logger ?? createLogger(config.logLevel);
  const orm = await openOrm(config.databaseUrl, {
    poolMax: config.databasePool.size,
    statementTimeoutMs: config.databasePool.statementTimeoutMs,
    idleInTransactionTimeoutMs: config.databasePool.idleInTransactionTimeoutMs,
  });
  const temporal = await connectTemporal(config.temporal.address, config.temporal.namespace, options.workerConnection);
  const authCache = await startAuthCache(orm);
  const deps: AppDeps = { config, orm, temporal, logger, authCache: authCache.cache, rateLimiter: new RateLimiter() };
  const inFlight = inFlightRequests();
  const limits = config.server;
  const handle = buildApp(deps, inFlight).callback();
  // Node checks the header and request timeouts every connectionsCheckingInterval (30 s by default): check often
  // enough that the configured timeouts hold.
  const server = createServer(
    {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: Math.max(limits.requestTimeoutMs, limits.headersTimeoutMs),
      connectionsCheckingInterval: Math.min(1_000, limits.headersTimeoutMs),
    },
    (request, response) => void handle(request, response),
  );
  server.maxConnections = limits.maxConnections;
  // A reserved server's handle already has its address; a port number listens on HOST (loopback outside production).
  if (typeof port === 'number') server.listen(port, config.host);
  else server.listen(port);
  await new Promise<void>((resolve, reject) => server.once('listening', resolve).once('error', reject));
  const address = server.address();
  const url = `http://localhost:${typeof address === 'object' && address ? address.port : config.port}`;
  const { host: metricsHost, apiPort: metricsPort } = config.telemetry.metrics;
  const metrics =
    metricsPort === null
      ? null
      : await startMetricsServer({ registry: apiMetrics, host: metricsHost, port: metricsPort });
  return {
    server,
    url,
    metricsUrl: metrics?.url ?? null,
    deps,
    async stop() {
      // Stop accepting; idle kept-alive sockets go now, busy ones once their answer is sent (Connection: close).
      inFlight.closing();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      // Handlers run on after their client left: Temporal and the ORM close only once they are done (bounded).
      if (!(await inFlight.drain(options.drainTimeoutMs ?? config.workflowWaitMs + DRAIN_MARGIN_MS))) {
        logger.warn({ running: inFlight.count }, 'API stopping with requests still running');
      }
      server.closeAllConnections();
      await closed;
      await metrics?.stop();
      await authCache.stop();
      await temporal.connection.close();
      await orm.close();
      await flushLogger(logger);
    },
  };
}

if (require.main === module) {
  const config = loadConfig();
  startTracing(config.telemetry.traces, 'api');
  startApi(config)
    .then((api) => {
      api.deps.logger.info({ url: api.url }, 'API listening');
      const stop = () => void api.stop().then(() => process.exit(0));
      process.once('SIGINT', stop).once('SIGTERM', stop);
    })
    .catch((error) => {
      console.error(error);
      process.exit(1);
    });
}
