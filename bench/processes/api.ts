/**
 * The API in a process of its own, configured as docker-compose runs it: APP_ENV=production (no response
 * validation, every request logged at info to stdout, which the bench sends nowhere), no worker in the process (so
 * no eager workflow start). The parent passes the stack's environment with the production-only settings filled in
 * (productionEnv) and a request budget that never answers 429, so the bench measures the service, not the limiter's
 * refusals (the limiter still runs on every request).
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { startApi } from '../../api/server';
import { loadConfig } from '../../domain/platform/config';
import { startTracing } from '../../domain/platform/tracing';
import { cpuProfiler, serveParent } from './child';

/**
 * The stack's environment as production: its database, Temporal and keys, with what production also requires. The
 * metrics endpoint is served, as in production, but on an ephemeral port (unless the caller names one): two benches
 * on one machine never collide on 9464.
 */
export function productionEnv(stackEnv: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return {
    API_METRICS_PORT: '0',
    ...process.env,
    ...stackEnv,
    APP_ENV: 'production',
    NODE_ENV: 'production',
    LOG_LEVEL: 'info',
    HOST: '127.0.0.1',
    PORT: '0',
    RATE_LIMIT_REQUESTS: '1000000000',
    VAULT_PRIVATE_KEY: generateKeyPairSync('ec', { namedCurve: 'P-256' })
      .privateKey.export({ type: 'pkcs8', format: 'der' })
      .toString('base64'),
    CARD_FINGERPRINT_KEY: randomBytes(32).toString('base64'),
    DASHBOARD_JWT_KEY: randomBytes(32).toString('base64'),
    SMTP_URL: 'smtps://user:secret@smtp.example.com:465',
    PUBLIC_BASE_URL: 'https://payments.example.com',
  };
}

if (require.main === module) {
  const config = loadConfig(process.env);
  // As api/server.ts's own entry does: traces are recorded when the environment names an OTLP endpoint.
  startTracing(config.telemetry.traces, 'api');
  startApi(config).then(
    (api) => {
      serveParent(cpuProfiler, api.stop);
      process.send?.({ url: api.url });
    },
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
