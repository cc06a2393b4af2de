/**
 * Runs the API process on its own (docker-compose, production). `npm start` uses startApi() directly so
 * the whole local stack lives in one process.
 */
import type { Server } from 'node:http';
import type { Logger } from 'pino';
import { buildApp } from './app';
import { loadConfig, type Config } from '../domain/platform/config';
import type { AppDeps } from './deps';
import { createLogger, flushLogger } from '../domain/platform/logger';
import { connectTemporal, type WorkerConnection } from './temporal';
import { openOrm } from '../db/orm';
import { startAuthCache } from './http/auth-cache';
import { RateLimiter } from './http/rate-limit';

export interface RunningApi {
  server: Server;
  url: string;
  deps: AppDeps;
  stop(): Promise<void>;
}

export async function startApi(
  config: Config,
  port = config.port,
  options: { logger?: Logger; workerConnection?: WorkerConnection } = {},
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
  const server = buildApp(deps).listen(port);
  await new Promise<void>((resolve, reject) => server.once('listening', resolve).once('error', reject));
  const address = server.address();
  const url = `http://localhost:${typeof address === 'object' && address ? address.port : port}`;
  return {
    server,
    url,
    deps,
    async stop() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      await closed;
      await authCache.stop();
      await orm.close();
      await temporal.connection.close();
      await flushLogger(logger);
    },
  };
}

if (require.main === module) {
  const config = loadConfig();
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
