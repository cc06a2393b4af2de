/**
 * One webhook HTTP POST with the guarantees a delivery needs: a hard deadline over the whole exchange (DNS,
 * connect, TLS, response, body), a capped body read, no redirects followed, and — outside local/test mode —
 * the SSRF guard applied to the very address the socket connects to (a custom `lookup`, so DNS cannot answer
 * differently between the check and the connection).
 */
import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { StringDecoder } from 'node:string_decoder';
import {
  BlockedAddressError,
  bareHost,
  isBlockedAddress,
  isLocalHostname,
} from '../../domain/webhooks/webhooks.address-guard';

export type PostError = 'timeout' | 'dns_error' | 'connection_error' | 'tls_error' | 'blocked_address';

export interface PostOptions {
  timeoutMs: number;
  /** local/test mode: loopback and private targets are allowed. */
  allowPrivateTargets: boolean;
  /** At most this much of the response body is read; the rest is discarded with the connection. */
  maxReadBytes: number;
  /** At most this many bytes of it are kept (valid UTF-8, no NUL). */
  keepBytes: number;
}

export interface PostResult {
  /** null when no response arrived (see error). */
  status: number | null;
  body: string | null;
  /** Retry-After of the response, in seconds from now (delta-seconds or HTTP-date). */
  retryAfterSeconds: number | null;
  error: PostError | null;
  durationMs: number;
}

class DeadlineError extends Error {
  readonly code = 'ETIMEDOUT_DELIVERY';
}

type Resolve = (
  hostname: string,
  options: dns.LookupAllOptions,
  callback: (error: NodeJS.ErrnoException | null, addresses: dns.LookupAddress[]) => void,
) => void;

/**
 * A net `lookup` that resolves like dns.lookup but fails when any address of the name is in a blocked range (a
 * name answering both public and private addresses is refused outright). Both callback forms are served: Node
 * asks for `all` when it races IPv4 and IPv6 (autoSelectFamily).
 */
export function guardedLookup(resolve: Resolve = dns.lookup): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, '', 4);
      const refused = addresses.find((entry) => isBlockedAddress(entry.address));
      if (refused) return callback(new BlockedAddressError(refused.address), '', 4);
      if (addresses.length === 0)
        return callback(Object.assign(new Error(`No address for ${hostname}`), { code: 'ENOTFOUND' }), '', 4);
      if (options.all) return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, addresses);
      return callback(null, addresses[0].address, addresses[0].family);
    });
  };
}

const lookupWithGuard = guardedLookup();

export function parseRetryAfter(value: string | undefined, now = Date.now()): number | null {
  if (!value) return null;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? null : Math.max(0, Math.ceil((date - now) / 1000));
}

/** The first `limit` bytes as text that fits `limit` bytes once stored (PostgreSQL text has no NUL). */
export function truncateUtf8(bytes: Buffer, limit: number): string {
  // eslint-disable-next-line no-control-regex -- NUL bytes in a receiver's answer are dropped on purpose
  let text = new StringDecoder('utf8').write(bytes.subarray(0, limit)).replace(/\u0000/g, '');
  while (Buffer.byteLength(text, 'utf8') > limit) text = text.slice(0, -1);
  return text;
}

function classify(error: unknown): PostError {
  const code = String((error as { code?: string })?.code ?? '');
  if (error instanceof BlockedAddressError) return 'blocked_address';
  if (error instanceof DeadlineError) return 'timeout';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAI_FAIL' || code === 'ENODATA') return 'dns_error';
  if (
    code.startsWith('ERR_TLS') ||
    code.startsWith('ERR_SSL') ||
    code.includes('CERT') ||
    code.includes('SELF_SIGNED') ||
    code.includes('UNABLE_TO_VERIFY')
  )
    return 'tls_error';
  return 'connection_error';
}

export function postJson(
  url: string,
  body: string,
  headers: Record<string, string>,
  options: PostOptions,
): Promise<PostResult> {
  const started = Date.now();
  const finish = (result: Omit<PostResult, 'durationMs'>): PostResult => ({
    ...result,
    durationMs: Date.now() - started,
  });
  const failed = (error: PostError) => finish({ status: null, body: null, retryAfterSeconds: null, error });

  const target = new URL(url);
  const host = bareHost(target.hostname);
  if (!options.allowPrivateTargets && (isLocalHostname(host) || (isIP(host) !== 0 && isBlockedAddress(host)))) {
    // Literal addresses never go through lookup, so they are checked here.
    return Promise.resolve(failed('blocked_address'));
  }

  return new Promise<PostResult>((resolve) => {
    const chunks: Buffer[] = [];
    let read = 0;
    let settled = false;
    let response: http.IncomingMessage | undefined;

    const done = (result: PostResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      resolve(result);
    };
    const fromResponse = () =>
      finish({
        status: response?.statusCode ?? null,
        body: truncateUtf8(Buffer.concat(chunks), options.keepBytes),
        retryAfterSeconds: parseRetryAfter(response?.headers['retry-after']),
        error: null,
      });

    const request = (target.protocol === 'https:' ? https : http).request(target, {
      method: 'POST',
      headers: {
        ...headers,
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(body, 'utf8')),
      },
      // A fresh connection per attempt: no keep-alive races, and every connection passes the guard.
      agent: false,
      ...(options.allowPrivateTargets ? {} : { lookup: lookupWithGuard }),
    });

    const deadline = setTimeout(
      () => request.destroy(new DeadlineError('The receiver did not answer in time')),
      options.timeoutMs,
    );

    request.on('response', (res) => {
      response = res;
      res.on('data', (chunk: Buffer) => {
        if (read < options.maxReadBytes) chunks.push(chunk.subarray(0, options.maxReadBytes - read));
        read += chunk.length;
        // Enough read: the status is what counts; drop the rest with the connection.
        if (read >= options.maxReadBytes) {
          res.destroy();
          done(fromResponse());
        }
      });
      res.on('end', () => done(fromResponse()));
      // A body cut short (deadline, reset) still leaves a status to act on.
      res.on('error', () => done(fromResponse()));
      res.on('close', () => done(fromResponse()));
    });
    request.on('error', (error) => {
      if (response) done(fromResponse());
      else done(failed(classify(error)));
    });
    request.end(body);
  });
}
