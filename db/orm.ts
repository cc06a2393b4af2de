import { MikroORM } from '@mikro-orm/postgresql';
import { ormConfig, type PoolOptions } from './mikro-orm.config';

export type Orm = MikroORM;

export async function openOrm(databaseUrl: string, options: PoolOptions = {}): Promise<Orm> {
  return MikroORM.init(ormConfig(databaseUrl, options));
}

export async function migrate(orm: Orm): Promise<void> {
  await orm.getMigrator().up();
}
