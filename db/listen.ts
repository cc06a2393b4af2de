/**
 * The one LISTEN loop: per ORM (per process), one connection outside the pool, reconnecting by itself, carries
 * every channel its consumers subscribe to (the auth cache's invalidations, the outbox's events and mail).
 * `onState(false)` is called whenever notifications may be missed (not yet connected, connection lost: `error`
 * says why when known), `onState(true)` once listening again: a cache fed by these notifications must not serve
 * entries meanwhile, and an outbox catches up on what it may have missed.
 */
import type { Orm } from './orm';

interface RawPgConnection {
  query(sql: string): Promise<unknown>;
  on(event: 'notification', listener: (message: { channel: string; payload?: string }) => void): void;
  on(event: 'error' | 'end', listener: (error?: Error) => void): void;
  removeAllListeners(): void;
  end(): Promise<void>;
}

interface KnexPgClient {
  acquireRawConnection(): Promise<RawPgConnection>;
}

const RECONNECT_DELAY_MS = 1_000;

export interface Listener {
  stop(): Promise<void>;
}

interface Subscriber {
  channel: string;
  onNotify(payload: string): void;
  onState(listening: boolean, error?: Error): void;
}

function detach(raw: RawPgConnection): void {
  raw.removeAllListeners();
  // A late 'error' from a detached connection must still have a listener, or it would crash the process.
  raw.on('error', () => undefined);
}

/** One ORM's LISTEN connection and the subscribers it serves; gone once the last one stops. */
class ListenLoop {
  private readonly subscribers = new Set<Subscriber>();
  private connection: RawPgConnection | undefined;
  private connecting: Promise<void> | undefined;
  private retry: NodeJS.Timeout | undefined;

  constructor(
    private readonly knexClient: KnexPgClient,
    private readonly onEmpty: () => void,
  ) {}

  async add(subscriber: Subscriber): Promise<void> {
    this.subscribers.add(subscriber);
    subscriber.onState(false);
    const current = this.connection;
    if (!current) return (this.connecting ??= this.connect());
    try {
      await current.query(`listen ${subscriber.channel}`);
      if (this.connection === current && this.subscribers.has(subscriber)) subscriber.onState(true);
    } catch {
      // The connection is failing: its 'error'/'end' reconnects, listening on every channel again.
    }
  }

  async remove(subscriber: Subscriber): Promise<void> {
    if (!this.subscribers.delete(subscriber)) return;
    subscriber.onState(false);
    const current = this.connection;
    if (this.subscribers.size === 0) {
      this.onEmpty();
      clearTimeout(this.retry);
      this.connection = undefined;
      if (current) {
        detach(current);
        await current.end().catch(() => undefined);
      }
      return;
    }
    if (current && !this.channels().has(subscriber.channel))
      await current.query(`unlisten ${subscriber.channel}`).catch(() => undefined);
  }

  private channels(): Set<string> {
    return new Set([...this.subscribers].map((subscriber) => subscriber.channel));
  }

  private lost(error?: Error): void {
    for (const subscriber of this.subscribers) subscriber.onState(false, error);
    if (this.subscribers.size > 0) {
      this.retry = setTimeout(() => void (this.connecting ??= this.connect()), RECONNECT_DELAY_MS);
    }
  }

  private async connect(): Promise<void> {
    try {
      const raw = await this.knexClient.acquireRawConnection();
      raw.on('notification', ({ channel, payload }) => {
        if (this.connection !== raw) return;
        for (const subscriber of this.subscribers)
          if (subscriber.channel === channel) subscriber.onNotify(payload ?? '');
      });
      const lost = (error?: Error) => {
        if (this.connection !== raw) return;
        this.connection = undefined;
        detach(raw);
        this.lost(error);
      };
      raw.on('error', lost);
      raw.on('end', lost);
      const listened = new Set<string>();
      const listenAll = async () => {
        for (const channel of this.channels()) {
          if (!listened.has(channel)) await raw.query(`listen ${channel}`);
          listened.add(channel);
        }
      };
      await listenAll();
      if (this.subscribers.size === 0) {
        detach(raw);
        await raw.end().catch(() => undefined);
        return;
      }
      this.connection = raw;
      // Subscribed while the first LISTENs ran: their channels too, before anyone is told it is listening.
      await listenAll();
      for (const subscriber of this.subscribers) subscriber.onState(true);
    } catch (error) {
      this.lost(error as Error);
    } finally {
      this.connecting = undefined;
    }
  }
}

const loops = new WeakMap<Orm, ListenLoop>();

/** Subscribes to one channel on the ORM's LISTEN connection (opened by the first subscriber). */
export async function listen(
  orm: Orm,
  channel: string,
  onNotify: (payload: string) => void,
  onState: (listening: boolean, error?: Error) => void = () => undefined,
): Promise<Listener> {
  if (!/^[a-z_]+$/.test(channel)) throw new Error(`Invalid channel name ${channel}`);
  let loop = loops.get(orm);
  if (!loop) {
    const knexClient = orm.em.getConnection().getKnex().client as unknown as KnexPgClient;
    const created = new ListenLoop(knexClient, () => loops.delete(orm));
    loops.set(orm, created);
    loop = created;
  }
  const subscriber: Subscriber = { channel, onNotify, onState };
  await loop.add(subscriber);
  const owner = loop;
  return { stop: () => owner.remove(subscriber) };
}
