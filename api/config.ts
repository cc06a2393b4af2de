/**
 * Every setting the service reads from its environment, parsed once and frozen. Nothing else in the
 * code base reads process.env (scripts set variables before calling loadConfig).
 */
import { decodeMasterKey } from './lib/crypto';

export type AppEnv = 'local' | 'test' | 'production';

export interface Config {
  /** local and test relax a few production-only checks (e.g. plain-http webhook URLs to loopback). */
  readonly env: AppEnv;
  readonly port: number;
  readonly databaseUrl: string;
  readonly temporal: {
    readonly address: string;
    readonly namespace: string;
  };
  /** 32-byte master key for envelope encryption of secrets at rest (customer documents, credentials). */
  readonly encryptionKey: Buffer;
  readonly idempotencyTtlSeconds: number;
  /** How long a request waits for a concurrent one holding the same idempotency key before getting 409. */
  readonly idempotencyWaitMs: number;
  readonly rateLimit: { readonly limit: number; readonly windowSeconds: number };
  /** Largest JSON body accepted, in bytes. */
  readonly bodyLimitBytes: number;
  readonly logLevel: string;
  /** Validate every response against its declared schema (on in tests, so schema drift fails loudly). */
  readonly validateResponses: boolean;
}

export class ConfigError extends Error {}

function int(env: NodeJS.ProcessEnv, name: string, fallback: number, min = 1): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min) throw new ConfigError(`${name} must be an integer >= ${min}`);
  return value;
}

function required(env: NodeJS.ProcessEnv, name: string): string {
  const value = env[name];
  if (!value) throw new ConfigError(`${name} is required`);
  return value;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const appEnv = (env.APP_ENV ?? 'local') as AppEnv;
  if (!['local', 'test', 'production'].includes(appEnv)) throw new ConfigError('APP_ENV must be local, test or production');
  return Object.freeze({
    env: appEnv,
    port: int(env, 'PORT', 3000, 0),
    databaseUrl: required(env, 'DATABASE_URL'),
    temporal: Object.freeze({
      address: required(env, 'TEMPORAL_ADDRESS'),
      namespace: env.TEMPORAL_NAMESPACE || 'default',
    }),
    encryptionKey: decodeMasterKey(required(env, 'ENCRYPTION_KEY')),
    idempotencyTtlSeconds: int(env, 'IDEMPOTENCY_TTL_SECONDS', 24 * 60 * 60),
    idempotencyWaitMs: int(env, 'IDEMPOTENCY_WAIT_MS', 10_000),
    rateLimit: Object.freeze({
      limit: int(env, 'RATE_LIMIT_REQUESTS', 100),
      windowSeconds: int(env, 'RATE_LIMIT_WINDOW_SECONDS', 60),
    }),
    bodyLimitBytes: int(env, 'BODY_LIMIT_BYTES', 256 * 1024),
    logLevel: env.LOG_LEVEL || (appEnv === 'test' ? 'silent' : 'info'),
    validateResponses: env.VALIDATE_RESPONSES ? env.VALIDATE_RESPONSES === 'true' : appEnv !== 'production',
  });
}
