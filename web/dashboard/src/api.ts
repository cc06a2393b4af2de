/**
 * The Dashboard's one way to the API: bearer access token and x-merchant-id on every Dashboard call, a quiet
 * refresh (POST /auth/refresh) shortly before the token expires or when a call answers 401, and sign-in again
 * when the refresh is refused (signed out elsewhere, password changed, session revoked).
 */
import type { components, operations } from './api-types.generated';
import { currentSession, setSession, type Session } from './session';

const BASE = '/api/v1';
const REFRESH_MARGIN_MS = 60_000;

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
  }
}

type Json<R> = R extends { content: { 'application/json': infer T } } ? T : never;
type Success<R> = R extends { 200: infer A }
  ? A
  : R extends { 201: infer A }
    ? A
    : R extends { 202: infer A }
      ? A
      : never;

/** What an operation answers on success, as the API's OpenAPI document declares it (api-types.generated.ts). */
export type Answer<Op extends keyof operations> = Json<Success<operations[Op]['responses']>>;

/** One item of an operation's list answer: a page's data or a plain array. */
export type Item<Op extends keyof operations> =
  Answer<Op> extends { data: (infer T)[] } ? T : Answer<Op> extends (infer T)[] ? T : never;

export interface Page<T> {
  data: T[];
  meta: components['schemas']['Pagination'];
}

interface ErrorEnvelope {
  error?: { code?: string; message?: string; details?: Record<string, unknown> };
}

async function send(method: string, path: string, body: unknown, headers: Record<string, string>): Promise<Response> {
  return fetch(`${BASE}${path}`, {
    method,
    headers: {
      accept: 'application/json',
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

async function parse<T>(response: Response): Promise<T> {
  const text = await response.text();
  const json: unknown = text ? JSON.parse(text) : undefined;
  if (!response.ok) {
    const error = (json as ErrorEnvelope | undefined)?.error;
    throw new ApiError(
      response.status,
      error?.code ?? `HTTP_${response.status}`,
      error?.message ?? `The request failed (${response.status})`,
      error?.details,
    );
  }
  return json as T;
}

/** Unauthenticated calls: sign-in, forgot/reset password, accept invitation. */
export async function publicCall<T>(method: string, path: string, body?: unknown): Promise<T> {
  return parse<T>(await send(method, path, body, {}));
}

type TokenPair = Answer<'postAuthRefresh'>;

let refreshing: Promise<Session | null> | undefined;
let timer: ReturnType<typeof setTimeout> | undefined;

/** Exchanges the refresh token once, however many calls ask at the same time; null: sign in again. */
function refresh(): Promise<Session | null> {
  refreshing ??= (async () => {
    const session = currentSession();
    if (!session) return null;
    try {
      const pair = await publicCall<TokenPair>('POST', '/auth/refresh', { refresh_token: session.refreshToken });
      const next = withTokens(session, pair);
      setSession(next);
      return next;
    } catch (error) {
      if (error instanceof ApiError && error.status < 500) setSession(null, 'Your session ended; sign in again.');
      return null;
    } finally {
      refreshing = undefined;
    }
  })();
  return refreshing;
}

export function withTokens(
  session: Omit<Session, 'accessToken' | 'refreshToken' | 'expiresAt'>,
  pair: TokenPair,
): Session {
  return {
    ...session,
    accessToken: pair.access_token,
    refreshToken: pair.refresh_token,
    expiresAt: Date.now() + pair.expires_in * 1000,
  };
}

/** Refreshes quietly a minute before the access token expires, as long as the tab is signed in. */
export function scheduleRefresh(): void {
  if (timer) clearTimeout(timer);
  const session = currentSession();
  if (!session) return;
  const delay = Math.max(session.expiresAt - Date.now() - REFRESH_MARGIN_MS, 1_000);
  timer = setTimeout(() => void refresh().then(() => scheduleRefresh()), delay);
}

/** A merchant Dashboard call as the signed-in person on the selected merchant. */
export async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
  let session = currentSession();
  if (!session) throw new ApiError(401, 'SIGNED_OUT', 'Sign in to continue');
  if (session.expiresAt - Date.now() < 5_000) session = await refresh();
  if (!session) throw new ApiError(401, 'SIGNED_OUT', 'Your session ended; sign in again.');
  // One key per change the person asked for, so the retry after a refreshed token (below) is the same request.
  const idempotency: Record<string, string> = method === 'GET' ? {} : { 'idempotency-key': crypto.randomUUID() };
  const headers = (s: Session) => ({
    authorization: `Bearer ${s.accessToken}`,
    'x-merchant-id': s.merchantId,
    ...idempotency,
  });
  let response = await send(method, path, body, headers(session));
  if (response.status === 401) {
    const renewed = await refresh();
    if (!renewed) throw new ApiError(401, 'SIGNED_OUT', 'Your session ended; sign in again.');
    response = await send(method, path, body, headers(renewed));
  }
  return parse<T>(response);
}

/** Query string from defined, non-empty values. */
export function query(params: Record<string, string | number | undefined | null>): string {
  const entries = Object.entries(params).filter(([, value]) => value !== undefined && value !== null && value !== '');
  return entries.length === 0 ? '' : `?${new URLSearchParams(entries.map(([k, v]) => [k, String(v)])).toString()}`;
}
