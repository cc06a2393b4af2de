/**
 * `npm start`: the whole stack in one process. With no DATABASE_URL an embedded PostgreSQL runs from .data/;
 * with no TEMPORAL_ADDRESS a Temporal dev server (Web UI on :8233) does. Then migrations, the worker and the
 * API. The first start on empty data creates a demo organization and writes its keys to .data/. Ctrl-C
 * stops everything in reverse order; a second start reuses the data.
 */
import fs from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../domain/platform/config';
import { startApi } from '../api/server';
import { startSandbox } from '../sandbox/server';
import { migrate, openOrm } from '../db/orm';
import {
  bootstrapMerchantOwner,
  bootstrapOrganizationOwner,
  bootstrapTenant,
} from '../domain/tenants/tenants.bootstrap';
import { merchantOwnerSignInHelp, ownerSignInHelp } from './lib/owner-help';
import { buildDashboard } from './lib/dashboard-build';
import { OrganizationSchema } from '../db/entities';
import { registerSchedules, startWorker } from '../worker/main';
import { installTemporalRuntime } from '../worker/metrics';
import { CREDENTIALS_FILE, ensureEncryptionKey, localDatabase } from './lib/local-stack';
import { DATA_DIR, log } from './lib/paths';
import { startTemporalDevServer } from './lib/temporal-dev-server';
import { startMailCatcher } from './lib/mailpit';
import { startJaeger } from './lib/jaeger';
import { startTracing } from '../domain/platform/tracing';

type Stop = () => Promise<unknown>;

async function main(): Promise<void> {
  const stops: Stop[] = [];
  let stopping = false;
  const shutdown = async (code: number) => {
    if (stopping) process.exit(code); // a second Ctrl-C does not wait
    stopping = true;
    log('stopping…');
    for (const stop of stops.reverse()) await stop().catch((error) => log(`while stopping: ${error}`));
    process.exit(code);
  };
  process.on('SIGINT', () => void shutdown(0)).on('SIGTERM', () => void shutdown(0));

  try {
    // Before the dev server touches Temporal's native side: the worker's endpoint then has the SDK's metrics.
    installTemporalRuntime();
    fs.mkdirSync(DATA_DIR, { recursive: true });
    const database = await localDatabase();
    stops.push(database.stop);

    let temporalAddress = process.env.TEMPORAL_ADDRESS;
    let temporalUi = process.env.TEMPORAL_UI_URL ?? '(your Temporal UI)';
    if (!temporalAddress) {
      const temporal = await startTemporalDevServer({ dbFile: path.join(DATA_DIR, 'temporal.sqlite') });
      stops.push(temporal.stop);
      temporalAddress = temporal.address;
      temporalUi = temporal.uiUrl;
    }

    // The sandbox PSP test-mode connectors call, unless SANDBOX_URL points at one already running.
    let sandboxUrl = process.env.SANDBOX_URL;
    if (!sandboxUrl) {
      const sandbox = await startSandbox({ port: Number(process.env.SANDBOX_PORT || 4010) });
      stops.push(sandbox.stop);
      sandboxUrl = sandbox.url;
    }

    // The mail catcher invitations and password resets go to, unless SMTP_URL names a real server.
    let smtpUrl = process.env.SMTP_URL;
    let mailUi = '(your SMTP server)';
    if (!smtpUrl) {
      const mail = await startMailCatcher({
        dataDir: path.join(DATA_DIR, 'mailpit'),
        smtpPort: Number(process.env.MAILPIT_SMTP_PORT || 1025),
        uiPort: Number(process.env.MAILPIT_UI_PORT || 8025),
      });
      stops.push(mail.stop);
      smtpUrl = mail.smtpUrl;
      mailUi = mail.apiUrl ? mail.uiUrl : `.eml files in ${mail.uiUrl} (no Mailpit binary)`;
    }

    // Jaeger, the trace UI, unless OTEL_EXPORTER_OTLP_ENDPOINT names a collector already.
    let otlpEndpoint = process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
    let tracesUi = otlpEndpoint ? `(your collector at ${otlpEndpoint})` : 'off (no Go to build Jaeger)';
    if (!otlpEndpoint) {
      const jaeger = await startJaeger();
      if (jaeger) {
        stops.push(jaeger.stop);
        otlpEndpoint = jaeger.otlpEndpoint;
        tracesUi = `${jaeger.uiUrl}   (service switchyard; API: ${jaeger.uiUrl}/api/traces?service=switchyard)`;
      }
    }

    const config = loadConfig({
      ...process.env,
      ...(otlpEndpoint ? { OTEL_EXPORTER_OTLP_ENDPOINT: otlpEndpoint } : {}),
      SANDBOX_URL: sandboxUrl,
      SMTP_URL: smtpUrl,
      APP_ENV: process.env.APP_ENV ?? 'local',
      DATABASE_URL: database.url,
      TEMPORAL_ADDRESS: temporalAddress,
      ENCRYPTION_KEY: ensureEncryptionKey(),
    });
    log('applying migrations');
    const owner = await openOrm(database.migrationUrl);
    try {
      await migrate(owner);
    } finally {
      await owner.close();
    }
    // The app from here on: the runtime role, which reads and writes rows but changes no schema.
    const orm = await openOrm(config.databaseUrl);
    stops.push(() => orm.close());
    await bootstrapDemoTenant(orm.em.fork());

    const tracing = startTracing(config.telemetry.traces, 'switchyard');
    if (tracing) stops.push(() => tracing.stop());
    await registerSchedules(config);
    log('building the Dashboard web app');
    await buildDashboard();
    log('bundling workflows and starting the worker');
    const worker = await startWorker({ config, orm });
    stops.push(() => worker.stop());
    // Sharing the worker's connection lets the API start charges eagerly on this process's worker.
    const api = await startApi(config, config.port, { workerConnection: worker.connection });
    stops.push(() => api.stop());

    console.log(`
  Switchyard is running.
    API:              ${api.url}/api/v1   (OpenAPI: ${api.url}/api/v1/openapi.json)
    Temporal UI:      ${temporalUi}
    Mail (Mailpit):   ${mailUi}   (invitations, password resets)
    Traces (Jaeger):  ${tracesUi}
    Metrics:          API ${api.metricsUrl ?? 'off'}, worker ${worker.metricsUrl ?? 'off'}   (Prometheus text)
    Dashboard:        ${api.url}/dashboard/   (merchant sign-in; first start: the one-time link printed above sets the password)
    Dashboard API:    ${api.url}/api/v1/auth/merchant/login, /auth/organization/login   (see README, Dashboard sign-in)
    Sandbox PSP:      ${sandboxUrl}   (test cards: README, ${sandboxUrl}/_sandbox/test-cards)
    Test credentials: ${fs.existsSync(CREDENTIALS_FILE) ? CREDENTIALS_FILE : 'run npm run bootstrap'}
  Ctrl-C stops everything.
`);
    worker.done.catch((error) => {
      log(`worker stopped unexpectedly: ${error}`);
      void shutdown(1);
    });
  } catch (error) {
    console.error(error);
    await shutdown(1);
  }
}

/** On empty data, a demo organization whose keys a newcomer can curl with straight away. */
async function bootstrapDemoTenant(em: ReturnType<Awaited<ReturnType<typeof openOrm>>['em']['fork']>): Promise<void> {
  if ((await em.count(OrganizationSchema, {})) > 0) return;
  const tenant = await bootstrapTenant(em, {
    organizationName: 'Demo Organization',
    merchantName: 'Demo Merchant',
  });
  const owner = await bootstrapOrganizationOwner(em, tenant.organization_id, 'owner@example.com');
  const merchantOwner = await bootstrapMerchantOwner(
    em,
    tenant.organization_id,
    tenant.merchant_id,
    'owner@example.com',
  );
  const credentials = { ...tenant, organization_owner: owner, merchant_owner: merchantOwner };
  fs.writeFileSync(CREDENTIALS_FILE, `${JSON.stringify(credentials, null, 2)}\n`, { mode: 0o600 });
  log(`created a demo organization; its API keys and Dashboard owner are in ${CREDENTIALS_FILE}`);
  const base = `http://localhost:${process.env.PORT || 3000}`;
  process.stderr.write(ownerSignInHelp(owner, `${base}/api/v1`));
  process.stderr.write(merchantOwnerSignInHelp(merchantOwner, `${base}/dashboard`));
}

void main();
