/**
 * Where the dev stack keeps things. Data (databases, Temporal history) lives in the repo so `rm -rf .data` is a
 * full reset; downloaded/built tools live in a per-user cache so fresh clones and CI runs reuse them.
 */
import os from 'node:os';
import path from 'node:path';

export const REPO_ROOT = path.resolve(__dirname, '..', '..');

export const DATA_DIR = path.resolve(process.env.SWITCHYARD_DATA_DIR || path.join(REPO_ROOT, '.data'));

export const CACHE_DIR = path.resolve(
  process.env.SWITCHYARD_CACHE_DIR || path.join(os.homedir(), '.cache', 'switchyard'),
);

/** Progress goes to stderr so stdout stays clean for anything a script wants to pipe. */
export function log(msg: string): void {
  process.stderr.write(`[switchyard] ${msg}\n`);
}
