/**
 * The client's address, as every per-IP control (sign-in throttles, public-key budgets, card-testing caps) sees it.
 *
 * X-Forwarded-For is written by the client first and each proxy appends the address it was connected from, so only
 * the entries appended by proxies we run can be believed. Koa's `app.proxy` takes the left-most entry, which the
 * client chooses: one client could become any number of addresses. Here the header is read only when the socket
 * peer is a configured proxy (TRUSTED_PROXIES, CIDRs; none by default), and then from the right: the first hop that
 * is not a trusted proxy is the client.
 */
import { BlockList, isIP } from 'node:net';
import type { Context, Next } from 'koa';
import { parseCidr } from '../../domain/platform/cidr';

export type TrustedProxies = readonly string[];

/** TRUSTED_PROXIES as a BlockList, to check peers against. */
export function proxyList(cidrs: TrustedProxies): BlockList {
  const list = new BlockList();
  for (const cidr of cidrs) {
    const { address, prefix, family } = parseCidr(cidr);
    list.addSubnet(address, prefix, family);
  }
  return list;
}

/** `::ffff:192.0.2.1` (an IPv4 peer on a dual-stack socket) is the IPv4 address it carries. */
export function normalizeAddress(address: string): string {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address);
  return mapped ? mapped[1] : address;
}

export function isTrusted(list: BlockList, address: string): boolean {
  const version = isIP(address);
  return version !== 0 && list.check(address, version === 4 ? 'ipv4' : 'ipv6');
}

/** The right-most hop that is not a trusted proxy (the peer itself when it is not one). */
export function clientAddress(peer: string, forwardedFor: string | undefined, trusted: TrustedProxies): string {
  const list = proxyList(trusted);
  return resolve(list, normalizeAddress(peer), forwardedFor);
}

function resolve(list: BlockList, peer: string, forwardedFor: string | undefined): string {
  let client = peer;
  if (!isTrusted(list, client) || !forwardedFor) return client;
  const hops = forwardedFor.split(',').map((hop) => normalizeAddress(hop.trim()));
  for (let i = hops.length - 1; i >= 0; i -= 1) {
    // A trusted proxy that wrote something that is not an address: the proxy itself is the last hop we know.
    if (!isIP(hops[i])) return client;
    client = hops[i];
    if (!isTrusted(list, client)) return client;
  }
  return client;
}

/**
 * The bucket a per-IP limit counts: an IPv4 address, or an IPv6 address's /64. One IPv6 subscriber is routinely given
 * a whole /64 (SLAAC, privacy addresses), so counting per /128 would give one client 2^64 budgets.
 */
export function addressBucket(address: string): string {
  if (isIP(address) !== 6) return address;
  const [head, tail = ''] = address.toLowerCase().split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  // An embedded dotted IPv4 tail (`::1.2.3.4`) is two groups; it never reaches the first four.
  const rightGroups = right.reduce((n, group) => n + (group.includes('.') ? 2 : 1), 0);
  const groups = address.includes('::')
    ? [...left, ...new Array<string>(8 - left.length - rightGroups).fill('0'), ...right]
    : left;
  return `${groups
    .slice(0, 4)
    .map((group) => group.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}

/**
 * Sets ctx.ip (Koa's own `request.ip` setter) to the resolved client address once per request, so every reader
 * (route-runner, inbound webhooks, request logs) agrees. app.proxy stays off: Koa must not read the header itself.
 */
export function clientAddressMiddleware(trusted: TrustedProxies) {
  const list = proxyList(trusted);
  // No trusted proxy (the default): the peer is the client, without a BlockList check per request.
  const peerOnly = trusted.length === 0;
  return (ctx: Context, next: Next) => {
    const peer = normalizeAddress(ctx.req.socket.remoteAddress ?? '');
    ctx.request.ip = peerOnly ? peer : resolve(list, peer, ctx.get('x-forwarded-for'));
    return next();
  };
}
