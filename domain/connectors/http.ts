/**
 * The adapters' one way to call a provider: fetch with an AbortController deadline. A transport failure becomes
 * ProviderUnreachableError: refused before sending → network_error (nothing reached the provider); a timeout or a
 * connection lost mid-exchange → unknown (it may have charged). Any HTTP answer is returned for the provider's
 * transformer to classify (a 5xx is unknown too). Request bodies (which may hold card data) never reach an error.
 */
import { type Outcome, type ProviderCall, type ProviderResult, ProviderUnreachableError } from './connector';

export interface ProviderRequest {
  method: 'GET' | 'POST' | 'PUT';
  path: string;
  headers?: Record<string, string | undefined>;
  /** Sent as JSON. */
  json?: unknown;
  /** Sent form-encoded with Stripe-style nesting (a[b]=1, a[]=1). */
  form?: Record<string, unknown>;
  query?: Record<string, string>;
}

export interface ProviderResponse {
  status: number;
  /** Parsed JSON object (a leading BOM stripped), or null when the body is empty or not a JSON object. */
  body: Record<string, unknown> | null;
  /** The parsed array when the body is a JSON array (Mercado Pago's refunds of a payment); absent otherwise. */
  list?: unknown[];
}

export async function callProvider(
  call: Pick<ProviderCall, 'baseUrl' | 'timeoutMs'>,
  request: ProviderRequest,
): Promise<ProviderResponse> {
  const headers: Record<string, string> = { accept: 'application/json' };
  for (const [name, value] of Object.entries(request.headers ?? {})) if (value !== undefined) headers[name] = value;
  let body: string | undefined;
  if (request.json !== undefined) {
    body = JSON.stringify(request.json);
    headers['content-type'] = 'application/json';
  } else if (request.form !== undefined) {
    body = encodeForm(request.form);
    headers['content-type'] = 'application/x-www-form-urlencoded';
  }
  const query = request.query ? `?${new URLSearchParams(request.query).toString()}` : '';
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), call.timeoutMs);
  try {
    const response = await fetch(`${call.baseUrl}${request.path}${query}`, {
      method: request.method,
      headers,
      body,
      signal: controller.signal,
    });
    const text = await response.text();
    const list = parseArray(text);
    return { status: response.status, body: parseObject(text), ...(list ? { list } : {}) };
  } catch (error) {
    // The cause may quote the URL; nothing from the request body is ever included.
    if (controller.signal.aborted)
      throw new ProviderUnreachableError('timeout', `No answer within ${call.timeoutMs} ms`);
    if (refusedBeforeSending(error)) throw new ProviderUnreachableError('refused', 'Could not connect to the provider');
    throw new ProviderUnreachableError('connection', 'The connection to the provider failed mid-request');
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Error codes that prove the request never left this machine (no connection was ever established), so the provider
 * cannot have seen it. Anything else (ECONNRESET, "other side closed", a TLS failure after the handshake) is not proof.
 */
const NOT_SENT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EAI_NONAME',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
  'UND_ERR_CONNECT_TIMEOUT',
  'CERT_HAS_EXPIRED',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

function refusedBeforeSending(error: unknown): boolean {
  const cause = (error as { cause?: { code?: unknown; errors?: Array<{ code?: unknown }> } } | null)?.cause;
  const codes = [cause?.code, ...(cause?.errors ?? []).map((nested) => nested?.code)];
  // A multi-address connect (happy eyeballs) fails with one error per address: all of them must be refusals.
  const known = codes.filter((code): code is string => typeof code === 'string');
  return known.length > 0 && known.every((code) => NOT_SENT_CODES.has(code));
}

/** Runs a provider call; an unreachable provider is a result (network_error or unknown), not an exception. */
export async function withTransport(run: () => Promise<ProviderResult>): Promise<ProviderResult> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof ProviderUnreachableError) {
      const outcome: Outcome = error.kind === 'refused' ? 'network_error' : 'unknown';
      return { outcome, providerReference: null, rawCode: error.kind, rawMessage: error.message };
    }
    throw error;
  }
}

/** Shared by every transformer: a 5xx means the provider failed, whatever its body says — maybe after charging. */
export function serverFailure(response: ProviderResponse, rawCode: string | null = null): ProviderResult | null {
  if (response.status < 500) return null;
  return {
    outcome: 'unknown',
    providerReference: null,
    rawCode: rawCode ?? `http_${response.status}`,
    rawMessage: `Provider answered HTTP ${response.status}`,
  };
}

/**
 * The provider's "an earlier request under this idempotency key is still processing / was already processed"
 * reply: it says nothing about the outcome and proves the key was used, so the request may have charged (or
 * captured, or refunded). Unknown — resolved by a lookup under the same key — never a refusal to cascade on.
 */
export function keyStillInUse(rawCode: string): ProviderResult {
  return result('unknown', {
    rawCode,
    rawMessage: 'An earlier request under this idempotency key is still in progress or was already processed',
  });
}

export function result(outcome: Outcome, fields: Partial<ProviderResult> = {}): ProviderResult {
  return { outcome, providerReference: null, rawCode: null, rawMessage: null, ...fields };
}

/**
 * A provider's error message, safe to keep: authentication failures are replaced by a fixed text, because some
 * providers quote (part of) the key they refused, and credentials must never reach a log or a client.
 */
export function safeMessage(status: number, message: string | null): string | null {
  return status === 401 || status === 403 ? 'The provider rejected the credentials' : message;
}

/** The adapter cannot send this payment method to this provider (routing should not have chosen it). */
export function unsupportedMethod(method: string): ProviderResult {
  return result('processing_error', {
    rawCode: 'unsupported_payment_method',
    rawMessage: `Payment method ${method} is not supported by this connector`,
  });
}

/** testCredentials: a cheap authenticated call's answer → ok/message (the message never quotes a credential). */
export async function credentialCheck(
  run: () => Promise<ProviderResponse & { rejected?: boolean }>,
): Promise<{ ok: boolean; message: string }> {
  try {
    const response = await run();
    if (response.rejected || response.status === 401 || response.status === 403)
      return { ok: false, message: 'The provider rejected the credentials' };
    if (response.status >= 500) return { ok: false, message: `The provider is unavailable (HTTP ${response.status})` };
    if (response.status >= 400)
      return { ok: false, message: `The provider refused the request (HTTP ${response.status})` };
    return { ok: true, message: 'The provider accepted the credentials' };
  } catch (error) {
    if (error instanceof ProviderUnreachableError)
      return { ok: false, message: `The provider could not be reached (${error.kind})` };
    throw error;
  }
}

export function encodeForm(value: Record<string, unknown>): string {
  const params = new URLSearchParams();
  const add = (key: string, item: unknown) => {
    if (item === undefined || item === null) return;
    if (Array.isArray(item)) item.forEach((entry) => add(`${key}[]`, entry));
    else if (typeof item === 'object')
      for (const [name, nested] of Object.entries(item)) add(`${key}[${name}]`, nested);
    else params.append(key, typeof item === 'string' ? item : JSON.stringify(item));
  };
  for (const [key, item] of Object.entries(value)) add(key, item);
  return params.toString();
}

function parseArray(text: string): unknown[] | null {
  const trimmed = text.replace(/^\uFEFF/, '').trim();
  if (!trimmed.startsWith('[')) return null;
  try {
    const parsed: unknown = JSON.parse(trimmed);
    return Array.isArray(parsed) ? parsed : null;
  } catch {
    return null;
  }
}

function parseObject(text: string): Record<string, unknown> | null {
  const trimmed = text.replace(/^\uFEFF/, '').trim();
  if (!trimmed) return null;
  try {
    const parsed: unknown = JSON.parse(trimmed);
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

/** Loose readers for provider JSON. */
export const field = {
  obj(value: unknown): Record<string, unknown> {
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {};
  },
  str(value: unknown): string | null {
    return typeof value === 'string' ? value : typeof value === 'number' ? String(value) : null;
  },
  num(value: unknown): number | null {
    return typeof value === 'number' && Number.isFinite(value) ? value : null;
  },
  list(value: unknown): unknown[] {
    return Array.isArray(value) ? value : [];
  },
};
