/**
 * One webhook HTTP POST with the guarantees a delivery needs: a hard deadline over the whole exchange (waiting
 * for a pooled connection, DNS, connect, TLS, response, body), a capped body read, no redirects followed, and —
 * outside local/test mode — the SSRF guard applied to the very address each socket connects to (a custom
 * `lookup` in the pool's connector, so DNS cannot answer differently between the check and the connection).
 *
 * Connections are kept alive per origin (an undici Agent: at most MAX_CONNECTIONS_PER_ORIGIN, closed after
 * KEEP_ALIVE_MS idle), so a burst to one receiver does not pay a TCP/TLS handshake per attempt. Every new
 * connection passes the guard; a kept-alive one stays pinned to the address that passed it when it was opened.
 */
import dns from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { StringDecoder } from 'node:string_decoder';
import { Agent, request, type Dispatcher } from 'undici';
import {
  BlockedAddressError,
  bareHost,
  isBlockedAddress,
  isLocalHostname,
} from '../../domain/webhooks/webhooks.outbound';

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
  if (error instanceof DeadlineError || code === 'UND_ERR_CONNECT_TIMEOUT') return 'timeout';
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

/** Connections per receiver origin; attempts beyond them wait (within their deadline) for a free one. */
export const MAX_CONNECTIONS_PER_ORIGIN = 16;
/** An idle kept-alive connection is closed after this (or sooner, when the receiver's Keep-Alive says so). */
export const KEEP_ALIVE_MS = 30_000;

/** A pooled dispatcher for webhook POSTs; `resolve` is dns.lookup unless a test answers for it. */
export function webhookDispatcher(options: { allowPrivateTargets: boolean; resolve?: Resolve }): Dispatcher {
  return new Agent({
    connections: MAX_CONNECTIONS_PER_ORIGIN,
    keepAliveTimeout: KEEP_ALIVE_MS,
    keepAliveMaxTimeout: KEEP_ALIVE_MS,
    connect: options.allowPrivateTargets ? {} : { lookup: guardedLookup(options.resolve) },
  });
}

// One per process and mode, built on first use (the deadline of each attempt bounds the pool's own waits).
const dispatchers = new Map<boolean, Dispatcher>();
function sharedDispatcher(allowPrivateTargets: boolean): Dispatcher {
  let dispatcher = dispatchers.get(allowPrivateTargets);
  if (!dispatcher) {
    dispatcher = webhookDispatcher({ allowPrivateTargets });
    dispatchers.set(allowPrivateTargets, dispatcher);
  }
  return dispatcher;
}

export async function postJson(
  url: string,
  body: string,
  headers: Record<string, string>,
  options: PostOptions,
  dispatcher: Dispatcher = sharedDispatcher(options.allowPrivateTargets),
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
    return failed('blocked_address');
  }

  const deadline = new AbortController();
  const timer = setTimeout(
    () => deadline.abort(new DeadlineError('The receiver did not answer in time')),
    options.timeoutMs,
  );
  let response: Dispatcher.ResponseData | undefined;
  const chunks: Buffer[] = [];
  try {
    response = await request(target, {
      method: 'POST',
      headers: {
        ...headers,
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(body, 'utf8')),
      },
      body,
      dispatcher,
      signal: deadline.signal,
    });
    let read = 0;
    for await (const chunk of response.body as AsyncIterable<Buffer>) {
      if (read < options.maxReadBytes) chunks.push(chunk.subarray(0, options.maxReadBytes - read));
      read += chunk.length;
      // Enough read: the status is what counts; drop the rest with the connection.
      if (read >= options.maxReadBytes) {
        response.body.destroy();
        break;
      }
    }
  } catch (error) {
    if (!response) return failed(classify(error));
    // A body cut short (deadline, reset) still leaves a status to act on.
  } finally {
    clearTimeout(timer);
  }
  const retryAfter = response.headers['retry-after'];
  return finish({
    status: response.statusCode,
    body: truncateUtf8(Buffer.concat(chunks), options.keepBytes),
    retryAfterSeconds: parseRetryAfter(Array.isArray(retryAfter) ? retryAfter[0] : retryAfter),
    error: null,
  });
}
