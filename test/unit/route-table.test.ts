/**
 * The route table (api/http/define-route.ts): a request is matched only against the routes of its first path
 * segment, and answers as one @koa/router holding every route did (the handler, 405 + Allow, OPTIONS, 501, 404,
 * case-insensitive paths).
 */
import { expect } from 'chai';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import Koa from 'koa';
import { RouteTable } from '../../api/http/define-route';

const PREFIX = '/api/v1';

function table(): RouteTable {
  const routes = new RouteTable(PREFIX);
  const answer = (name: string) => (ctx: Koa.Context) => void (ctx.body = { route: name, params: ctx.params });
  for (let i = 0; i < 50; i += 1) routes.add('get', `${PREFIX}/merchants/:id/thing-${i}`, answer(`thing-${i}`));
  routes.add('get', `${PREFIX}/customers/:customerId`, answer('get customer'));
  routes.add('delete', `${PREFIX}/customers/:customerId`, answer('delete customer'));
  routes.add('post', `${PREFIX}/customers`, answer('create customer'));
  routes.add('get', '/health/live', answer('liveness'));
  return routes;
}

describe('Route table: routes grouped by first path segment', () => {
  let server: Server;
  let base: string;

  before(async () => {
    const app = new Koa();
    app.use(table().middleware());
    server = app.listen(0);
    await new Promise((resolve) => server.once('listening', resolve));
    base = `http://localhost:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('matches a request only against the routes of its own first segment', () => {
    const routes = table();
    expect(routes.candidates(`${PREFIX}/customers/cust_1`)).to.equal(3);
    expect(routes.candidates(`${PREFIX}/merchants/mrc_1/thing-3`)).to.equal(50);
    expect(routes.candidates(`${PREFIX}/nothing-here`)).to.equal(0);
  });

  it('answers as one router did: the handler with its params, case-insensitively, and root paths', async () => {
    const read = await fetch(`${base}${PREFIX}/customers/cust_1`);
    expect(await read.json()).to.deep.equal({ route: 'get customer', params: { customerId: 'cust_1' } });
    const upper = await fetch(`${base}/API/V1/CUSTOMERS/cust_1`);
    expect(((await upper.json()) as { route: string }).route).to.equal('get customer');
    expect(((await (await fetch(`${base}/health/live`)).json()) as { route: string }).route).to.equal('liveness');
  });

  it('answers another method on a known path with 405 and Allow, and OPTIONS with Allow', async () => {
    const put = await fetch(`${base}${PREFIX}/customers/cust_1`, { method: 'PUT' });
    expect(put.status).to.equal(405);
    expect(put.headers.get('allow')).to.equal('HEAD, GET, DELETE');
    const options = await fetch(`${base}${PREFIX}/customers`, { method: 'OPTIONS' });
    expect(options.status).to.equal(200);
    expect(options.headers.get('allow')).to.equal('POST');
  });

  it('leaves unknown paths to 404, and an unknown method anywhere to 501', async () => {
    expect((await fetch(`${base}${PREFIX}/nothing-here`)).status).to.equal(404);
    expect((await fetch(`${base}${PREFIX}/customers/cust_1/nothing`)).status).to.equal(404);
    expect((await fetch(`${base}${PREFIX}/nothing-here`, { method: 'PROPFIND' })).status).to.equal(501);
    expect((await fetch(`${base}${PREFIX}/customers`, { method: 'PROPFIND' })).status).to.equal(501);
  });

  it('refuses a route whose first segment is a parameter (it would belong to every group)', () => {
    expect(() => new RouteTable(PREFIX).add('get', `${PREFIX}/:anything`, () => undefined)).to.throw(/literal/);
  });
});
