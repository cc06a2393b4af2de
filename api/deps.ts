import type { Logger } from 'pino';
import type { Config } from '../domain/platform/config';
import type { Orm } from '../db/orm';
import type { TemporalDeps } from './temporal/connection';
import type { AuthCache } from './http/auth';
import type { RateLimiter } from './http/rate-limit';

/** Everything the HTTP app needs from the outside world, built once by the server (or a test). */
export interface AppDeps {
  config: Config;
  orm: Orm;
  temporal: TemporalDeps;
  logger: Logger;
  /** API keys and merchant ownership, emptied on every change in any process (AuthCache, api/http/auth.ts). */
  authCache: AuthCache;
  /** The per-key request budget, leased in blocks from the shared counter (api/http/rate-limit.ts). */
  rateLimiter: RateLimiter;
}
