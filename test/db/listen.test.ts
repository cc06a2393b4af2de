/** db/listen.ts: one LISTEN loop per process; every channel shares its one reconnecting connection. */
import { expect } from 'chai';
import { listen, type Listener } from '../../db/listen';
import { openOrm, type Orm } from '../../db/orm';
import { stack } from '../helpers/stack';

/** What a callback is handed, in order: `value()` resolves with the next one. */
function received<T>(): { hand: (value: T) => void; value: () => Promise<T> } {
  const queue: T[] = [];
  let waiting: ((value: T) => void) | undefined;
  return {
    hand(value) {
      if (!waiting) return void queue.push(value);
      waiting(value);
      waiting = undefined;
    },
    value: () =>
      queue.length ? Promise.resolve(queue.shift() as T) : new Promise<T>((resolve) => (waiting = resolve)),
  };
}

describe('Rule: one LISTEN connection per process carries every channel, and reconnects by itself', () => {
  let orm: Orm;
  let since: Date;
  const stops: Listener[] = [];

  beforeEach(async () => {
    since = new Date();
    orm = await openOrm(stack().config.databaseUrl);
  });

  afterEach(async () => {
    await Promise.all(stops.splice(0).map((listener) => listener.stop()));
    await orm.close();
  });

  /** Backends opened since the test began whose last statement was a (UN)LISTEN: this test's listen connections. */
  const listeningBackends = async () =>
    (
      await stack()
        .orm.em.fork()
        .execute<Array<{ pid: number }>>(
          `select pid from pg_stat_activity where backend_start >= ? and (query ilike 'listen %' or query ilike 'unlisten %')`,
          [since],
        )
    ).map((row) => row.pid);

  const notify = (channel: string, payload: string) =>
    stack().orm.em.fork().execute(`select pg_notify(?, ?)`, [channel, payload]);

  it('serves two channels over one connection, each notification to its own subscriber', async () => {
    const events = received<string>();
    const auth = received<string>();
    stops.push(await listen(orm, 'test_listen_events', events.hand));
    stops.push(await listen(orm, 'test_listen_auth', auth.hand));
    expect(await listeningBackends()).to.have.length(1);
    await notify('test_listen_events', 'evt_1');
    await notify('test_listen_auth', 'key_1');
    expect([await events.value(), await auth.value()]).to.deep.equal(['evt_1', 'key_1']);
  });

  it('tells every subscriber when the connection is lost and when it listens again, on every channel', async () => {
    const states = received<boolean>();
    const events = received<string>();
    stops.push(await listen(orm, 'test_listen_events', events.hand, states.hand));
    stops.push(await listen(orm, 'test_listen_mail', () => undefined));
    expect(await states.value()).to.equal(false); // not yet listening
    expect(await states.value()).to.equal(true);
    const [pid] = await listeningBackends();
    await stack().orm.em.fork().execute(`select pg_terminate_backend(?)`, [pid]);
    expect(await states.value()).to.equal(false);
    expect(await states.value()).to.equal(true);
    await notify('test_listen_events', 'evt_2');
    expect(await events.value()).to.equal('evt_2');
  });

  it('keeps serving the other channels when one subscriber stops', async () => {
    const events = received<string>();
    const mail = received<string>();
    const first = await listen(orm, 'test_listen_events', events.hand);
    stops.push(await listen(orm, 'test_listen_mail', mail.hand));
    await first.stop();
    await notify('test_listen_events', 'evt_3');
    await notify('test_listen_mail', 'mail_3');
    expect(await mail.value()).to.equal('mail_3');
    expect(await listeningBackends()).to.have.length(1);
  });
});
