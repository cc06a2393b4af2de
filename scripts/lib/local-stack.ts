/**
 * Local defaults shared by `npm start`, `npm run bootstrap` and `npm run migrate`: where the embedded
 * database lives and listens, and the generated encryption key. Anything set in the environment wins.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { DATA_DIR, log } from './paths';
import { startEmbeddedPostgres, type RunningPostgres } from './postgres';
import { portInUse } from './processes';
import { openOrm, type Orm } from '../../db/orm';
import { grantRuntimeRole, runtimeRoleUrl } from '../../db/runtime-role';

export const LOCAL_DATABASE = 'switchyard';
export const EMBEDDED_POSTGRES_PORT = Number(process.env.EMBEDDED_POSTGRES_PORT || 54329);
export const POSTGRES_DATA_DIR = path.join(DATA_DIR, 'postgres');
export const CREDENTIALS_FILE = path.join(DATA_DIR, 'test-credentials.json');
/** The embedded database's runtime role (DML only; db/runtime-role.ts). Loopback only, like its superuser. */
const LOCAL_RUNTIME_ROLE = 'switchyard_app';
const LOCAL_RUNTIME_PASSWORD = 'switchyard_app';

export interface LocalDatabase {
  /** The app's connection (DATABASE_URL): the runtime role, which reads and writes rows only. */
  url: string;
  /** The migrations' connection (MIGRATION_DATABASE_URL): the role that owns the schema. */
  migrationUrl: string;
  stop(): Promise<void>;
}

/** ENCRYPTION_KEY from the environment, else a key generated once into .data/ (local runs only). */
export function ensureEncryptionKey(): string {
  if (process.env.ENCRYPTION_KEY) return process.env.ENCRYPTION_KEY;
  const file = path.join(DATA_DIR, 'encryption.key');
  if (!fs.existsSync(file)) {
    fs.mkdirSync(DATA_DIR, { recursive: true });
    fs.writeFileSync(file, crypto.randomBytes(32).toString('base64'), { mode: 0o600 });
    log(`generated a local encryption key in ${file}`);
  }
  return fs.readFileSync(file, 'utf8').trim();
}

/**
 * DATABASE_URL and MIGRATION_DATABASE_URL (either one standing for both when the other is unset), or the embedded
 * PostgreSQL under .data/: reused when `npm start` already runs it, else started here (and `stop` stops it again).
 * On the embedded one, migrations run as its superuser and the app as the runtime role, granted here on every start.
 */
export async function localDatabase(): Promise<LocalDatabase> {
  const { DATABASE_URL, MIGRATION_DATABASE_URL } = process.env;
  if (DATABASE_URL || MIGRATION_DATABASE_URL) {
    const url = (DATABASE_URL || MIGRATION_DATABASE_URL) as string;
    return { url, migrationUrl: MIGRATION_DATABASE_URL || url, stop: async () => {} };
  }
  const migrationUrl = `postgres://postgres:postgres@127.0.0.1:${EMBEDDED_POSTGRES_PORT}/${LOCAL_DATABASE}`;
  let stop = async () => {};
  if (!(await portInUse(EMBEDDED_POSTGRES_PORT))) {
    const postgres: RunningPostgres = await startEmbeddedPostgres({
      dataDir: POSTGRES_DATA_DIR,
      port: EMBEDDED_POSTGRES_PORT,
      databases: [LOCAL_DATABASE],
    });
    stop = () => postgres.stop();
  }
  try {
    const owner = await openOrm(migrationUrl);
    try {
      await grantRuntimeRole(owner.em.fork(), LOCAL_RUNTIME_ROLE, LOCAL_RUNTIME_PASSWORD);
    } finally {
      await owner.close();
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { url: runtimeRoleUrl(migrationUrl, LOCAL_RUNTIME_ROLE, LOCAL_RUNTIME_PASSWORD), migrationUrl, stop };
}

/**
 * Runs `work` with an ORM on the local database (see localDatabase), closing both afterwards: as the runtime role,
 * or as the owner for migrations.
 */
export async function withLocalOrm<T>(work: (orm: Orm) => Promise<T>, as: 'runtime' | 'owner' = 'runtime'): Promise<T> {
  const database = await localDatabase();
  try {
    const orm = await openOrm(as === 'owner' ? database.migrationUrl : database.url);
    try {
      return await work(orm);
    } finally {
      await orm.close();
    }
  } finally {
    await database.stop();
  }
}
