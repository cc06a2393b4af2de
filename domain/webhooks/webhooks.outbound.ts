/**
 * What an outbound webhook POST needs from the domain: its signature and the addresses it may go to.
 *
 * Signing follows Standard Webhooks (https://www.standardwebhooks.com): the signed content is
 * `${webhook-id}.${webhook-timestamp}.${body}`, the key is the base64-decoded part of the secret after `whsec_`,
 * and the signature is `v1,` + base64(HMAC-SHA256). Several signatures are space-separated, so during a secret
 * rotation's overlap a receiver holding either secret verifies.
 *
 * The SSRF guard: outside local/test mode a merchant-supplied URL must not reach this service's own network:
 * loopback, private (RFC 1918, ULA), link-local (including cloud metadata at 169.254.169.254 and fd00:ec2::254),
 * CGNAT, multicast and reserved ranges are refused. The check runs on the resolved address the socket then
 * connects to (activities/webhooks/http-post.ts), so DNS rebinding between check and connect is not possible.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { BlockList, isIP } from 'node:net';

export const SECRET_PREFIX = 'whsec_';
/** 32 random bytes (the Standard Webhooks recommendation is 24 to 64). */
const SECRET_BYTES = 32;

export function generateSigningSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(SECRET_BYTES).toString('base64')}`;
}

function keyOf(secret: string): Buffer {
  if (!secret.startsWith(SECRET_PREFIX)) throw new Error('A signing secret starts with whsec_');
  return Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
}

export interface SignedHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/** One `v1,<sig>` per secret, space-separated, the current secret first. */
export function signPayload(
  secrets: readonly string[],
  id: string,
  timestampSeconds: number,
  body: string,
): SignedHeaders {
  const content = `${id}.${timestampSeconds}.${body}`;
  const signatures = secrets.map(
    (secret) => `v1,${createHmac('sha256', keyOf(secret)).update(content, 'utf8').digest('base64')}`,
  );
  return { 'webhook-id': id, 'webhook-timestamp': String(timestampSeconds), 'webhook-signature': signatures.join(' ') };
}

// Ranges a delivery must not connect to outside local/test mode (the SSRF guard above).
const blocked = new BlockList();
// IPv4 (IPv4-mapped IPv6 such as ::ffff:127.0.0.1 is matched against these too).
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local, cloud metadata
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.88.99.0', 24], // 6to4 relay
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const)
  blocked.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['::', 96], // IPv4-compatible (deprecated ::a.b.c.d): embeds an IPv4 address BlockList does not match as one
  ['::ffff:0:0:0', 96], // IPv4-translated (SIIT): embeds an IPv4 address too
  ['64:ff9b::', 96], // NAT64: would reach IPv4 behind the translator
  ['64:ff9b:1::', 48], // local-use NAT64
  ['100::', 64], // discard
  ['2001::', 23], // IETF protocol assignments (Teredo, ORCHID …)
  ['2001:db8::', 32], // documentation
  ['2002::', 16], // 6to4: embeds an IPv4 address
  ['fc00::', 7], // unique local (fd00::/8 included)
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
] as const)
  blocked.addSubnet(network, prefix, 'ipv6');

/** A literal IP address (v4 or v6, without brackets) that a webhook must not be sent to. */
export function isBlockedAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  return blocked.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/** URL.hostname keeps IPv6 literals in brackets. */
export const bareHost = (hostname: string): string => hostname.replace(/^\[(.*)\]$/, '$1');

/** Names that always mean this machine, whatever DNS says. */
export const isLocalHostname = (hostname: string): boolean => {
  const host = bareHost(hostname).toLowerCase().replace(/\.$/, '');
  return host === 'localhost' || host.endsWith('.localhost');
};

/** A loopback host (localhost, 127.0.0.0/8, ::1): the only plain-http target local/test mode accepts. */
export function isLoopbackHost(hostname: string): boolean {
  const host = bareHost(hostname);
  if (isLocalHostname(host)) return true;
  const family = isIP(host);
  if (family === 4) return host.startsWith('127.');
  if (family === 6) {
    const loopback = new BlockList();
    loopback.addAddress('::1', 'ipv6');
    loopback.addSubnet('127.0.0.0', 8, 'ipv4');
    return loopback.check(host, 'ipv6');
  }
  return false;
}

export class BlockedAddressError extends Error {
  readonly code = 'EBLOCKEDADDRESS';
  constructor(readonly address: string) {
    super(`Refusing to deliver to a private, loopback, link-local or reserved address (${address})`);
  }
}
