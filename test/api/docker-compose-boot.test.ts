/**
 * docker-compose.yml starts as shipped: the `migrate` service, then the API and the worker boot with exactly the
 * environment compose gives them (every `${VAR:?…}` filled with a generated value, service names pointing at the test
 * stack) and /health/ready answers 200. Their roles are created by the same SQL the postgres container runs on first
 * start (deploy/postgres/10-app-role.sh): `migrate` runs as the owner, the API and the worker as the runtime role,
 * which cannot change the schema. A new required variable in compose fails here until the test generates it, so
 * production can never again demand a setting compose does not pass.
 */
import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { loadConfig } from '../../domain/platform/config';
import { startApi } from '../../api/server';
import { startWorker } from '../../worker/main';
import { migrate, openOrm } from '../../db/orm';
import { api } from '../helpers/http';
import { stack } from '../helpers/stack';

// mocha's own YAML parser (a dependency of the test runner), so the test reads the file as Compose does.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const yaml = require('js-yaml') as { load(text: string): unknown };

/** node-postgres (MikroORM's driver), to connect as a role of the init scripts; it ships no type declarations. */
interface PgConnection {
  connect(): Promise<void>;
  query(sql: string): Promise<{ rows: Record<string, unknown>[] }>;
  end(): Promise<void>;
}
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { Client: PgClient } = require('pg') as {
  Client: new (options: Record<string, unknown>) => PgConnection;
};

const ROOT = path.resolve(__dirname, '../..');
const composeText = fs.readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8');
const compose = yaml.load(composeText) as { services: Record<string, { environment?: Record<string, unknown> }> };

const alphanumeric = () => randomBytes(18).toString('hex');
/** What an operator sets, following the header of docker-compose.yml. */
const GENERATED: Record<string, () => string> = {
  POSTGRES_PASSWORD: alphanumeric,
  MIGRATION_DB_PASSWORD: alphanumeric,
  APP_DB_PASSWORD: alphanumeric,
  TEMPORAL_DB_PASSWORD: alphanumeric,
  ENCRYPTION_KEY: () => randomBytes(32).toString('base64'),
  VAULT_PRIVATE_KEY: () =>
    generateKeyPairSync('ec', { namedCurve: 'P-256' })
      .privateKey.export({ type: 'pkcs8', format: 'der' })
      .toString('base64'),
  CARD_FINGERPRINT_KEY: () => randomBytes(32).toString('base64'),
  DASHBOARD_JWT_KEY: () => randomBytes(32).toString('base64'),
  SMTP_URL: () => 'smtps://user:secret@smtp.example.com:465',
  PUBLIC_BASE_URL: () => 'https://payments.example.com',
};

/** Compose interpolation: ${VAR}, ${VAR:-default}, ${VAR:?error} and $$. */
function interpolate(value: string, env: Record<string, string>): string {
  return value
    .replace(/\$\{(\w+)(?::([?-])([^}]*))?\}/g, (_, name: string, kind?: string, arg?: string) => {
      const set = env[name];
      if (set !== undefined && set !== '') return set;
      if (kind === '?') throw new Error(`compose requires ${name}: ${arg}`);
      return kind === '-' ? (arg ?? '') : '';
    })
    .replace(/\$\$/g, '$');
}

/** YAML merge keys (`<<: *app-environment`), as Compose applies them, whether or not the parser already did. */
function merged(map: Record<string, unknown>): Record<string, unknown> {
  const { '<<': base, ...own } = map;
  const bases = ([] as unknown[]).concat(base ?? []) as Record<string, unknown>[];
  return Object.assign({}, ...bases.map(merged), own) as Record<string, unknown>;
}

function serviceEnvironment(service: string, env: Record<string, string>): Record<string, string> {
  const raw = merged(compose.services[service].environment ?? {});
  return Object.fromEntries(Object.entries(raw).map(([name, value]) => [name, interpolate(String(value), env)]));
}

describe('docker-compose.yml starts as shipped', () => {
  it('names a generator for every variable it requires', () => {
    const required = [...new Set([...composeText.matchAll(/\$\{(\w+):\?/g)].map((match) => match[1]))];
    expect(required.filter((name) => !GENERATED[name])).to.deep.equal([]);
  });

  it('the API and the worker boot with exactly its environment and /health/ready answers 200', async function () {
    this.timeout(180_000);
    const operator = Object.fromEntries(Object.entries(GENERATED).map(([name, make]) => [name, make()]));
    const { env: stackEnv, sandboxUrl } = stack();
    const pgPort = stack().databasePort;
    // Service names → the test stack.
    const toStack = (environment: Record<string, string>) =>
      Object.fromEntries(
        Object.entries(environment).map(([name, value]) => [
          name,
          value
            .replace('@postgres:5432/', `@127.0.0.1:${pgPort}/`)
            .replace('temporal:7233', stackEnv.TEMPORAL_ADDRESS as string)
            .replace('http://sandbox:4010', sandboxUrl),
        ]),
      );
    const apiEnv = toStack(serviceEnvironment('api', operator));
    const workerEnv = toStack(serviceEnvironment('worker', operator));
    const migrateEnv = toStack(serviceEnvironment('migrate', operator));
    expect(apiEnv.APP_ENV).to.equal('production');

    // What the postgres image does on first start: POSTGRES_DB, then the init script's SQL, as the superuser.
    await freshAppDatabase();
    await runInitScript('10-app-role.sh', operator);

    // The `migrate` service (`npm run migrate`), as the owner role.
    const migrations = await openOrm(migrateEnv.MIGRATION_DATABASE_URL);
    try {
      await migrate(migrations);
      const [role] = await migrations.em
        .fork()
        .execute<{ rolsuper: boolean }[]>('select rolsuper from pg_roles where rolname = current_user');
      expect(role.rolsuper).to.equal(false);
    } finally {
      await migrations.close();
    }
    await expectNoDdl(apiEnv.DATABASE_URL);

    const apiConfig = loadConfig(apiEnv);
    const workerConfig = loadConfig(workerEnv);
    const workerOrm = await openOrm(workerConfig.databaseUrl);
    const worker = await startWorker({ config: workerConfig, orm: workerOrm, workflowBundle: stack().workflowBundle });
    const running = await startApi(apiConfig, 0);
    try {
      const ready = await api.get('/api/v1/health/ready', { baseUrl: running.url });
      expect(ready.status, ready.text).to.equal(200);
    } finally {
      await running.stop();
      await worker.stop();
      await workerOrm.close();
    }
  });

  it('Temporal connects as its own role, owner of its two databases only, and cannot open the app database', async function () {
    this.timeout(60_000);
    const temporal = serviceEnvironment(
      'temporal',
      Object.fromEntries(Object.entries(GENERATED).map(([n, make]) => [n, make()])),
    );
    expect(temporal.POSTGRES_USER).to.equal('temporal');
    expect(temporal.SKIP_DB_CREATE).to.equal('true');
    const password = alphanumeric();
    const admin = stack().orm.em.fork();
    for (const statement of [
      'drop database if exists temporal',
      'drop database if exists temporal_visibility',
      'drop role if exists temporal',
    ])
      await admin.execute(statement);
    await freshAppDatabase();
    await runInitScript('10-app-role.sh', { MIGRATION_DB_PASSWORD: alphanumeric(), APP_DB_PASSWORD: alphanumeric() });
    await runInitScript('20-temporal-role.sh', { TEMPORAL_DB_PASSWORD: password });

    const as = (database: string) =>
      new PgClient({ host: '127.0.0.1', port: stack().databasePort, user: 'temporal', password, database });
    const own = as('temporal');
    await own.connect();
    try {
      const [role] = (await own.query('select rolsuper, rolcreatedb from pg_roles where rolname = current_user')).rows;
      expect(role).to.deep.equal({ rolsuper: false, rolcreatedb: false });
      // auto-setup's schema step: the owner may create its tables.
      await own.query('create table schema_probe (id int)');
    } finally {
      await own.end();
    }
    const app = as('switchyard');
    let refused: Error | null = null;
    try {
      await app.connect();
    } catch (error) {
      refused = error as Error;
    } finally {
      await app.end().catch(() => undefined);
    }
    expect(refused?.message).to.match(/permission denied/);
  });
});

/** The app's database as the postgres image makes it (POSTGRES_DB), without the roles the init script creates. */
async function freshAppDatabase(): Promise<void> {
  const admin = stack().orm.em.fork();
  for (const statement of [
    'drop database if exists switchyard',
    'drop role if exists switchyard_app',
    'drop role if exists switchyard',
    'create database switchyard',
  ])
    await admin.execute(statement);
}

/** What the postgres image does with an init script on first start: each `--dbname X <<SQL` heredoc, as the superuser. */
async function runInitScript(name: string, variables: Record<string, string>): Promise<void> {
  const script = fs.readFileSync(path.join(ROOT, 'deploy/postgres', name), 'utf8');
  const heredocs = [...script.matchAll(/--dbname (\w+) <<SQL\n([\s\S]*?)\nSQL/g)];
  expect(heredocs, `${name} runs SQL from --dbname … <<SQL heredocs`).to.have.length.greaterThan(0);
  for (const [, database, sql] of heredocs) {
    const admin = new PgClient({ connectionString: stack().postgres.url(database) });
    await admin.connect();
    try {
      for (const statement of sql
        .split(';')
        .map((part) => part.trim())
        .filter(Boolean)) {
        await admin.query(statement.replace(/\$(\w+)/g, (whole, variable: string) => variables[variable] ?? whole));
      }
    } finally {
      await admin.end();
    }
  }
}

/** The runtime role reads and writes rows but changes no schema. */
async function expectNoDdl(databaseUrl: string): Promise<void> {
  const runtime = new PgClient({ connectionString: databaseUrl });
  await runtime.connect();
  try {
    await runtime.query('select count(*) from customers');
    for (const ddl of ['create table ddl_probe (id int)', 'drop table customers', 'alter table customers add x int']) {
      const refused = await runtime.query(ddl).then(
        () => `${ddl} was allowed`,
        (error: Error) => error.message,
      );
      expect(refused, ddl).to.match(/permission denied|must be owner/);
    }
  } finally {
    await runtime.end();
  }
}
