/**
 * An app built with its own dependencies (a logger that keeps its lines, an auth cache that hears no NOTIFY, other
 * telemetry settings), served on an ephemeral loopback port for the length of one callback, then closed.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildApp } from '../../api/app';
import type { AppDeps } from '../../api/deps';

export async function withApp<T>(deps: AppDeps, use: (baseUrl: string) => Promise<T>): Promise<T> {
  const handle = buildApp(deps).callback();
  const server = createServer((request, response) => void handle(request, response)).listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  try {
    return await use(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
}
