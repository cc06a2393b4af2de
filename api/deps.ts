import type { Logger } from 'pino';
import type { Config } from '../domain/platform/config';
import type { Orm } from '../db/orm';
import type { TemporalDeps } from './temporal';

/** Everything the HTTP app needs from the outside world, built once by the server (or a test). */
export interface AppDeps {
  config: Config;
  orm: Orm;
  temporal: TemporalDeps;
  logger: Logger;
}
