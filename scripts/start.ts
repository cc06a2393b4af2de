/**
 * `npm start`: the whole stack in one process. With no DATABASE_URL an embedded PostgreSQL runs from .data/;
 * with no TEMPORAL_ADDRESS a Temporal dev server (Web UI on :8233) does. Then migrations, the worker and the
 * API. Mailpit and Jaeger are optional: when their binaries are not built yet, the API starts without waiting and
 * they are built in the background (scripts/lib/optional-tools.ts). The first start on empty data creates a demo
 * organization and writes its keys to .data/. Ctrl-C stops everything in reverse order; a second start reuses the
 * data.
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
import { installTemporalRuntime } from '../worker/telemetry';
import { CREDENTIALS_FILE, ensureEncryptionKey, localDatabase, type LocalDatabase } from './lib/local-stack';
import { DATA_DIR, log } from './lib/paths';
import { startTemporalDevServer } from './lib/temporal-dev-server';
import { buildMailpit, existingMailpit, startMailCatcher, type RunningMail } from './lib/mailpit';
import { buildJaeger, existingJaeger, startJaeger, type RunningJaeger } from './lib/jaeger';
import { runStartPlan, type OptionalStart } from './lib/optional-tools';
import { which } from './lib/temporal-binaries';
import { Shutdown } from './lib/shutdown';
import { startTracing } from '../domain/platform/tracing';

const MAIL = {
  dataDir: path.join(DATA_DIR, 'mailpit'),
  smtpPort: Number(process.env.MAILPIT_SMTP_PORT || 1025),
  uiPort: Number(process.env.MAILPIT_UI_PORT || 8025),
};

async function main(): Promise<void> {
  const shutdown = new Shutdown();
  process.on('SIGINT', () => void shutdown.run(0)).on('SIGTERM', () => void shutdown.run(0));

  let database: LocalDatabase | undefined;
  let temporalAddress = process.env.TEMPORAL_ADDRESS;
  let temporalUi = process.env.TEMPORAL_UI_URL ?? '(your Temporal UI)';
  let sandboxUrl = process.env.SANDBOX_URL;
  const goThere = () => Boolean(which('go'));
  try {
    await runStartPlan({
      async required() {
        // Before the dev server touches Temporal's native side: the worker's endpoint then has the SDK's metrics.
        installTemporalRuntime();
        fs.mkdirSync(DATA_DIR, { recursive: true });
        database = await localDatabase();
        shutdown.add(database.stop);
        if (!temporalAddress) {
          const temporal = await startTemporalDevServer({ dbFile: path.join(DATA_DIR, 'temporal.sqlite') });
          shutdown.addTemporal(temporal.stop);
          temporalAddress = temporal.address;
          temporalUi = temporal.uiUrl;
        }
        // The sandbox PSP test-mode connectors call, unless SANDBOX_URL points at one already running.
        if (!sandboxUrl) {
          const sandbox = await startSandbox({ port: Number(process.env.SANDBOX_PORT || 4010) });
          shutdown.add(sandbox.stop);
          sandboxUrl = sandbox.url;
        }
      },
      // The mail catcher invitations and password resets go to, unless SMTP_URL names a real server.
      mail: process.env.SMTP_URL
        ? undefined
        : {
            name: 'Mailpit',
            existing: existingMailpit,
            buildable: goThere,
            build: buildMailpit,
            start: (binary) => startMailCatcher({ ...MAIL, binary }),
          },
      // Jaeger, the trace UI, unless OTEL_EXPORTER_OTLP_ENDPOINT names a collector already or SKIP_JAEGER=1.
      jaeger:
        process.env.OTEL_EXPORTER_OTLP_ENDPOINT || process.env.SKIP_JAEGER === '1'
          ? undefined
          : {
              name: 'Jaeger',
              existing: existingJaeger,
              buildable: goThere,
              build: buildJaeger,
              start: async (binary) => (await startJaeger({ binary }))!,
            },
      app: async ({ mail, jaeger }) => {
        const smtp = await mailOf(mail, shutdown);
        const traces = tracesOf(jaeger, shutdown);
        const links = { temporalUi, sandboxUrl: sandboxUrl!, mailUi: smtp.ui, tracesUi: traces.ui };
        const optional = { smtpUrl: smtp.url, otlpEndpoint: traces.endpoint };
        await startApp(database!, temporalAddress!, optional, links, shutdown);
      },
    });
  } catch (error) {
    console.error(error);
    await shutdown.run(1);
  }
}

/** Where mail goes, and what the banner says of it. A Mailpit still building starts once built. */
async function mailOf(mail: OptionalStart<RunningMail>, shutdown: Shutdown): Promise<{ url: string; ui: string }> {
  if (mail.state === 'skipped') return { url: process.env.SMTP_URL!, ui: '(your SMTP server)' };
  if (mail.state === 'building') {
    // Mail waits in the outbox, its delivery retried, until Mailpit listens on the SMTP port.
    void mail.built
      .then(async (binary) => {
        if (!binary) return log('Mailpit could not be built: mail stays in the outbox (set SMTP_URL to send it)');
        const running = await startMailCatcher({ ...MAIL, binary });
        shutdown.add(running.stop);
        log(`Mailpit is up: ${running.uiUrl} (mail waiting in the outbox is delivered to it)`);
      })
      .catch((error) => log(`Mailpit did not start (${error}): mail stays in the outbox`));
    const url = `smtp://127.0.0.1:${MAIL.smtpPort}`;
    return { url, ui: 'building Mailpit in the background; mail waits in the outbox until it is up (logged then)' };
  }
  const running = mail.state === 'running' ? mail.running : await startMailCatcher(MAIL); // no Go: .eml files
  shutdown.add(running.stop);
  return { url: running.smtpUrl, ui: running.apiUrl ? running.uiUrl : `.eml files in ${running.uiUrl} (no Go)` };
}

/**
 * Where traces go, and what the banner says of them. Tracing starts with the API or not at all: a Jaeger still
 * building leaves traces off for this run, and the next start runs it.
 */
function tracesOf(jaeger: OptionalStart<RunningJaeger>, shutdown: Shutdown): { endpoint?: string; ui: string } {
  const collector = process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
  if (jaeger.state === 'skipped') {
    return collector ? { endpoint: collector, ui: `(your collector at ${collector})` } : { ui: 'off (SKIP_JAEGER=1)' };
  }
  if (jaeger.state === 'unavailable') return { ui: 'off (no Go to build Jaeger)' };
  if (jaeger.state === 'building') {
    void jaeger.built.then((binary) => binary && log('Jaeger is built: traces are on from the next npm start'));
    return {
      ui: 'building Jaeger in the background: off for this run, on from the next start (SKIP_JAEGER=1 skips it)',
    };
  }
  shutdown.add(jaeger.running.stop);
  const ui = jaeger.running.uiUrl;
  return {
    endpoint: jaeger.running.otlpEndpoint,
    ui: `${ui}   (service switchyard; API: ${ui}/api/traces?service=switchyard)`,
  };
}

/** Migrations, the demo tenant, tracing, the worker and the API; then the banner. */
async function startApp(
  database: LocalDatabase,
  temporalAddress: string,
  optional: { smtpUrl: string; otlpEndpoint?: string },
  links: { temporalUi: string; sandboxUrl: string; mailUi: string; tracesUi: string },
  shutdown: Shutdown,
): Promise<void> {
  const config = loadConfig({
    ...process.env,
    ...(optional.otlpEndpoint ? { OTEL_EXPORTER_OTLP_ENDPOINT: optional.otlpEndpoint } : {}),
    SANDBOX_URL: links.sandboxUrl,
    SMTP_URL: optional.smtpUrl,
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
  shutdown.add(() => orm.close());
  await bootstrapDemoTenant(orm.em.fork());

  // Stopped after the worker and the API (in reverse order), before Jaeger: their last spans are flushed to it.
  const tracing = startTracing(config.telemetry.traces, 'switchyard');
  if (tracing) shutdown.add(() => tracing.stop());
  await registerSchedules(config);
  log('building the Dashboard web app');
  await buildDashboard();
  log('bundling workflows and starting the worker');
  const worker = await startWorker({ config, orm });
  shutdown.add(() => worker.stop());
  // Sharing the worker's connection lets the API start charges eagerly on this process's worker.
  const api = await startApi(config, config.port, { workerConnection: worker.connection });
  shutdown.add(() => api.stop());

  console.log(`
  Switchyard is running.
    API:              ${api.url}/api/v1   (OpenAPI: ${api.url}/api/v1/openapi.json)
    Temporal UI:      ${links.temporalUi}
    Mail (Mailpit):   ${links.mailUi}   (invitations, password resets)
    Traces (Jaeger):  ${links.tracesUi}
    Metrics:          API ${api.metricsUrl ?? 'off'}, worker ${worker.metricsUrl ?? 'off'}   (Prometheus text)
    Dashboard:        ${api.url}/dashboard/   (merchant sign-in)
    ${demoOwnerLink(`${api.url}/dashboard`)}
    Dashboard API:    ${api.url}/api/v1/auth/merchant/login, /auth/organization/login   (see README, Dashboard sign-in)
    Sandbox PSP:      ${links.sandboxUrl}   (test cards: README, ${links.sandboxUrl}/_sandbox/test-cards)
    Test credentials: ${fs.existsSync(CREDENTIALS_FILE) ? CREDENTIALS_FILE : 'run npm run bootstrap'}   (sk_live_/pk_live_ keys: test and live differ by connector, not by key)
  Ctrl-C stops everything.
`);
  worker.done.catch((error) => {
    log(`worker stopped unexpectedly: ${error}`);
    void shutdown.run(1);
  });
}

/**
 * The demo merchant owner's one-time password link, from the credentials file the first start wrote: on every
 * start, since the one printed with the first start's log has long scrolled away.
 */
function demoOwnerLink(dashboardUrl: string): string {
  const label = 'Demo sign-in:    ';
  if (!fs.existsSync(CREDENTIALS_FILE)) return `${label} (no demo organization: npm run bootstrap makes one)`;
  const { merchant_owner: owner } = JSON.parse(fs.readFileSync(CREDENTIALS_FILE, 'utf8')) as {
    merchant_owner?: { email: string; password_setup_token: string; password_setup_expires_at: string };
  };
  if (!owner) return `${label} the merchant owner of ${CREDENTIALS_FILE}`;
  const link = `${dashboardUrl}/reset-password?dashboard=merchant&token=${owner.password_setup_token}`;
  return `${label} ${owner.email}: set a password at ${link}   (one time, until ${owner.password_setup_expires_at}; used already? the Dashboard's "Forgot password" mails a new one)`;
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
