/**
 * The floors, in a process of their own: bare Koa answering a constant (what Node and Koa cost per request), and
 * bare Koa + pg reading the same customer row by id and merchant over a pool of 10 (one database round trip: the
 * fair floor of an API read). DATABASE_URL: the runtime role's database.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { customerRowByIdAndMerchant, type PgQueryable } from '../../db/repositories/customers.repository';
import { cpuProfiler, serveParent } from './child';

// pg is MikroORM's driver (no types of its own here): the baseline talks to it directly, without the ORM.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { Pool } = require('pg') as {
  Pool: new (options: { connectionString?: string; max: number }) => PgQueryable & { end(): Promise<void> };
};

export interface BaselineUrls {
  hello: string;
  /** GET `${pg}/<merchant id>/<customer id>`. */
  pg: string;
}

async function listen(app: Koa): Promise<Server> {
  const server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve, reject) => server.once('listening', resolve).once('error', reject));
  return server;
}

const urlOf = (server: Server) => `http://localhost:${(server.address() as AddressInfo).port}`;

async function main(): Promise<void> {
  const hello = new Koa();
  hello.use((ctx) => {
    ctx.body = { hello: 'world' };
  });
  const pool = new Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
  const pg = new Koa();
  pg.use(async (ctx) => {
    const [, merchantId, customerId] = ctx.path.split('/');
    const row = await customerRowByIdAndMerchant(pool, merchantId, customerId);
    ctx.status = row ? 200 : 404;
    ctx.body = { data: row };
  });
  const servers = [await listen(hello), await listen(pg)];
  serveParent(
    // The floor's own profile (`npm run bench:profile -- --floor`), to set the API's against.
    cpuProfiler,
    async () => {
      for (const server of servers) server.closeAllConnections();
      await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
      await pool.end();
    },
  );
  const urls: BaselineUrls = { hello: urlOf(servers[0]), pg: urlOf(servers[1]) };
  process.send?.(urls);
}

if (require.main === module)
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
