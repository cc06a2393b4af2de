/**
 * A request that fails because PostgreSQL went away cannot free its idempotency key then (the release needs the
 * database too). Found by the chaos suite: a charge answered 503 during a PostgreSQL restart, and the client's retry
 * with the same key met the request's own dead claim — 409 IDEMPOTENCY_KEY_IN_USE until the claim's lease passed.
 * This runs the idempotency phases on a PostgreSQL of its own, which the failing request's work stops.
 */
import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runIdempotent, type IdempotentRequest } from '../../api/http/idempotency';
import { migrate, openOrm, type Orm } from '../../db/orm';
import { startEmbeddedPostgres, type RunningPostgres } from '../../scripts/lib/postgres';
import { freePort } from '../helpers/ports';

describe('Idempotency: a request that fails while PostgreSQL is down', function () {
  this.timeout(180_000);
  let dataDir: string;
  let port: number;
  let postgres: RunningPostgres;
  let orm: Orm;

  const startPostgres = () =>
    startEmbeddedPostgres({ dataDir: path.join(dataDir, 'pg'), port, databases: ['idempotency_outage'] });

  before(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchyard-idempotency-outage-'));
    fs.chmodSync(dataDir, 0o755);
    port = await freePort();
    postgres = await startPostgres();
    orm = await openOrm(postgres.url('idempotency_outage'));
    await migrate(orm);
  });

  after(async () => {
    await orm?.close(true);
    await postgres?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('frees its key once PostgreSQL is back, so the retry runs instead of answering 409 IDEMPOTENCY_KEY_IN_USE for the lease', async () => {
    const request: IdempotentRequest = {
      scopeId: 'mer_outage',
      key: 'charge-during-restart',
      fingerprint: 'same-request',
      ttlSeconds: 86_400,
      // A lease far longer than the test: only an early release lets the retry in.
      leaseSeconds: 3_600,
      waitMs: 30_000,
      seal: (text) => text,
      open: (text) => text,
    };
    const failure = await runIdempotent(
      orm.em,
      () => orm.em.fork(),
      request,
      'no-transaction',
      async () => {
        await postgres.stop();
        throw new Error('the database went away');
      },
    ).then(
      () => null,
      (error: Error) => error,
    );
    expect(failure?.message).to.equal('the database went away');

    postgres = await startPostgres();
    let ran = 0;
    const retried = await runIdempotent(
      orm.em,
      () => orm.em.fork(),
      request,
      'no-transaction',
      async () => {
        ran += 1;
        return { status: 201, body: { id: 'txn_once' } };
      },
    );
    expect(retried).to.deep.equal({ status: 201, body: { id: 'txn_once' }, replayed: false });
    expect(ran).to.equal(1);
  });
});
