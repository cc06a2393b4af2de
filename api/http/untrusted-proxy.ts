/**
 * In production, a request carrying X-Forwarded-For or Forwarded from a private peer that is not in TRUSTED_PROXIES
 * comes through a proxy nobody listed. Serving it would give every client behind that proxy the proxy's address (one
 * shared per-IP budget that one abusive client exhausts for all), and believing the header would let any host on the
 * private network choose its address. So such requests are refused with 503 UNTRUSTED_PROXY, and the operator is
 * told once per peer, at fatal level, which address to add. Requests without those headers are served (health probes,
 * clients on the private network); a public peer's forwarded headers are ignored as before (a client may send them).
 */
import { BlockList, isIP } from 'node:net';
import type { Context, Next } from 'koa';
import type { Logger } from 'pino';
import { ApiError } from '../../domain/platform/errors';
import { isTrusted, normalizeAddress, proxyList, type TrustedProxies } from './client-address';

const PRIVATE = new BlockList();
for (const [network, prefix] of [
  ['10.0.0.0', 8],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['100.64.0.0', 10], // carrier-grade NAT space, used by some platforms' load balancers
] as const) {
  PRIVATE.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
] as const) {
  PRIVATE.addSubnet(network, prefix, 'ipv6');
}

/** Peers already reported; bounded, so a peer cycling through addresses cannot grow it without limit. */
const MAX_REPORTED = 100;

export function refuseUntrustedProxies(trusted: TrustedProxies, logger: Logger) {
  const list = proxyList(trusted);
  const reported = new Set<string>();
  return (ctx: Context, next: Next) => {
    if (!ctx.get('x-forwarded-for') && !ctx.get('forwarded')) return next();
    const peer = normalizeAddress(ctx.req.socket.remoteAddress ?? '');
    const version = isIP(peer);
    if (version === 0 || isTrusted(list, peer) || !PRIVATE.check(peer, version === 4 ? 'ipv4' : 'ipv6')) return next();
    if (!reported.has(peer) && reported.size < MAX_REPORTED) {
      reported.add(peer);
      logger.fatal(
        { code: 'UNTRUSTED_PROXY', peer },
        `refusing requests with forwarded headers from ${peer}, a private address not in TRUSTED_PROXIES: add the proxy's address to TRUSTED_PROXIES (or stop it sending X-Forwarded-For/Forwarded) and restart`,
      );
    }
    throw new ApiError(
      503,
      'internal_server_error',
      'UNTRUSTED_PROXY',
      'The service is misconfigured: it was reached through a proxy it does not trust. Nothing was done.',
    );
  };
}
