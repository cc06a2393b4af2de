import type { Client, Connection } from '@temporalio/client';
import type { Logger } from 'pino';
import type { Config } from './config';
import type { Orm } from '../db/orm';

/** Everything the HTTP app needs from the outside world, built once by the server (or a test). */
export interface AppDeps {
  config: Config;
  orm: Orm;
  temporal: { connection: Connection; client: Client };
  logger: Logger;
}
