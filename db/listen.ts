/**
 * A LISTEN connection outside the pool that reconnects by itself. `onState(false)` is called whenever
 * notifications may be missed (not yet connected, connection lost), `onState(true)` once listening again: a
 * cache fed by these notifications must not serve entries while they may be missed.
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

function detach(raw: RawPgConnection): void {
  raw.removeAllListeners();
  // A late 'error' from a detached connection must still have a listener, or it would crash the process.
  raw.on('error', () => undefined);
}

export async function listen(
  orm: Orm,
  channel: string,
  onNotify: (payload: string) => void,
  onState: (listening: boolean) => void,
): Promise<Listener> {
  if (!/^[a-z_]+$/.test(channel)) throw new Error(`Invalid channel name ${channel}`);
  const knexClient = orm.em.getConnection().getKnex().client as unknown as KnexPgClient;
  let connection: RawPgConnection | undefined;
  let stopped = false;
  let retry: NodeJS.Timeout | undefined;

  const connect = async (): Promise<void> => {
    if (stopped) return;
    try {
      const raw = await knexClient.acquireRawConnection();
      raw.on('notification', (message) => {
        if (message.channel === channel && !stopped) onNotify(message.payload ?? '');
      });
      const lost = () => {
        if (connection !== raw) return;
        connection = undefined;
        onState(false);
        detach(raw);
        if (!stopped) retry = setTimeout(() => void connect(), RECONNECT_DELAY_MS);
      };
      raw.on('error', lost);
      raw.on('end', lost);
      await raw.query(`listen ${channel}`);
      if (stopped) {
        detach(raw);
        await raw.end().catch(() => undefined);
        return;
      }
      connection = raw;
      onState(true);
    } catch {
      if (!stopped) retry = setTimeout(() => void connect(), RECONNECT_DELAY_MS);
    }
  };

  onState(false);
  await connect();
  return {
    async stop() {
      stopped = true;
      clearTimeout(retry);
      onState(false);
      const current = connection;
      connection = undefined;
      if (current) {
        detach(current);
        await current.end().catch(() => undefined);
      }
    },
  };
}
