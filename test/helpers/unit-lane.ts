/**
 * Setup of the unit lane (required by test/unit/.mocharc.json): unit tests need no server, binary or network.
 * It marks the process, and the processes it starts, as the unit lane, so the stack's starters refuse to run
 * (scripts/lib/test-lanes.ts). Connections beyond loopback and name lookups other than localhost throw, and
 * the test that made one fails even when the code under test swallowed the error.
 */
import dns from 'node:dns';
import { syncBuiltinESMExports } from 'node:module';
import net from 'node:net';
import { isLoopbackHost } from '../../domain/webhooks/webhooks.outbound';
import { TEST_LANE_ENV } from '../../scripts/lib/test-lanes';

process.env[TEST_LANE_ENV] = 'unit';

const refusals: string[] = [];

function refuse(what: string): never {
  refusals.push(what);
  throw new Error(`${what}: the unit lane has no network beyond loopback; such a test belongs in the stack lane`);
}

/** The refusals since the last call, forgotten once read. */
export function takeRefusals(): string[] {
  return refusals.splice(0);
}

/** The host a Socket#connect call targets: (options), (port, host?) or, internally, ([options, callback]). */
function hostOf(args: unknown[]): string | undefined {
  const first = Array.isArray(args[0]) ? (args[0] as unknown[])[0] : args[0];
  if (typeof first === 'object' && first !== null) {
    const options = first as { host?: string; path?: string };
    return options.path === undefined ? (options.host ?? 'localhost') : undefined;
  }
  if (typeof first === 'number' || /^\d+$/.test(String(first)))
    return typeof args[1] === 'string' ? args[1] : 'localhost';
  return undefined; // a Unix socket path
}

// A literal address is connected to without a lookup, so it is checked here; a name is checked by the lookup.
const connect = net.Socket.prototype.connect;
net.Socket.prototype.connect = function (this: net.Socket, ...args: unknown[]) {
  const host = hostOf(args);
  if (host !== undefined && net.isIP(host) !== 0 && !isLoopbackHost(host)) refuse(`a connection to ${host}`);
  return (connect as (...a: unknown[]) => net.Socket).apply(this, args);
};

const lookup = dns.lookup;
dns.lookup = function (hostname: string, ...rest: unknown[]) {
  if (!isLoopbackHost(hostname)) refuse(`a lookup of ${hostname}`);
  return (lookup as (...a: unknown[]) => void).call(dns, hostname, ...rest);
} as typeof dns.lookup;

const lookupPromise = dns.promises.lookup;
dns.promises.lookup = async function (hostname: string, ...rest: unknown[]) {
  if (!isLoopbackHost(hostname)) refuse(`a lookup of ${hostname}`);
  return (lookupPromise as (...a: unknown[]) => Promise<unknown>).call(dns.promises, hostname, ...rest);
} as typeof dns.promises.lookup;
syncBuiltinESMExports();

export const mochaHooks = {
  afterEach() {
    const refused = takeRefusals();
    if (refused.length > 0) throw new Error(`This test reached for the network: ${refused.join('; ')}`);
  },
};
