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

export const LOCAL_DATABASE = 'switchyard';
export const EMBEDDED_POSTGRES_PORT = Number(process.env.EMBEDDED_POSTGRES_PORT || 54329);
export const POSTGRES_DATA_DIR = path.join(DATA_DIR, 'postgres');
export const CREDENTIALS_FILE = path.join(DATA_DIR, 'test-credentials.json');

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
 * DATABASE_URL, or the embedded PostgreSQL under .data/: reused when `npm start` already runs it, else
 * started here (and `stop` stops it again).
 */
export async function localDatabase(): Promise<{ url: string; stop(): Promise<void> }> {
  if (process.env.DATABASE_URL) return { url: process.env.DATABASE_URL, stop: async () => {} };
  const url = `postgres://postgres:postgres@127.0.0.1:${EMBEDDED_POSTGRES_PORT}/${LOCAL_DATABASE}`;
  if (await portInUse(EMBEDDED_POSTGRES_PORT)) return { url, stop: async () => {} };
  const postgres: RunningPostgres = await startEmbeddedPostgres({
    dataDir: POSTGRES_DATA_DIR,
    port: EMBEDDED_POSTGRES_PORT,
    databases: [LOCAL_DATABASE],
  });
  return { url: postgres.url(LOCAL_DATABASE), stop: () => postgres.stop() };
}

/** Runs `work` with an ORM on the local database (see localDatabase), closing both afterwards. */
export async function withLocalOrm<T>(work: (orm: Orm) => Promise<T>): Promise<T> {
  const database = await localDatabase();
  try {
    const orm = await openOrm(database.url);
    try {
      return await work(orm);
    } finally {
      await orm.close();
    }
  } finally {
    await database.stop();
  }
}
