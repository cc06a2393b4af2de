/** CIDR parsing for TRUSTED_PROXIES (config) and the client-address resolver (api/http/client-address.ts). */
import { isIP } from 'node:net';

export interface Cidr {
  address: string;
  prefix: number;
  family: 'ipv4' | 'ipv6';
}

/** `10.0.0.0/8`, `fd00::/8` or a bare address (a /32 or /128); throws on anything else. */
export function parseCidr(text: string): Cidr {
  const [address, prefixText, ...rest] = text.trim().split('/');
  const version = isIP(address);
  const max = version === 4 ? 32 : 128;
  if (!version || rest.length > 0 || (prefixText !== undefined && !/^\d{1,3}$/.test(prefixText))) {
    throw new Error(`not a CIDR: ${text}`);
  }
  const prefix = prefixText === undefined ? max : Number(prefixText);
  if (prefix > max) throw new Error(`not a CIDR: ${text}`);
  return { address, prefix, family: version === 4 ? 'ipv4' : 'ipv6' };
}
