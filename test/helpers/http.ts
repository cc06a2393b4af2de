/** A small fetch wrapper for talking HTTP to the test stack. */
import { stack } from './stack';

export interface ApiResponse<T = any> {
  status: number;
  body: T;
  headers: Headers;
  text: string;
}

export interface RequestOptions {
  key?: string;
  body?: unknown;
  /** Sent as-is (for malformed-body tests). */
  rawBody?: string;
  headers?: Record<string, string>;
  query?: Record<string, string | number | boolean | string[] | undefined>;
  baseUrl?: string;
}

export function buildPath(path: string, query: RequestOptions['query'] = {}): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) search.append(name, String(item));
  }
  const qs = search.toString();
  return qs ? `${path}?${qs}` : path;
}

export async function request<T = any>(
  method: string,
  path: string,
  options: RequestOptions = {},
): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key) headers.authorization = `Bearer ${options.key}`;
  let payload: string | undefined = options.rawBody;
  if (options.body !== undefined) {
    payload = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const prefix = path.startsWith('/api/') || path.startsWith('/health') ? '' : '/api/v1';
  const response = await fetch(`${options.baseUrl ?? stack().url}${buildPath(prefix + path, options.query)}`, {
    method,
    headers,
    body: payload,
  });
  const text = await response.text();
  let body: any;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = text;
  }
  return { status: response.status, body, headers: response.headers, text };
}

export const api = {
  get: <T = any>(path: string, options?: RequestOptions) => request<T>('GET', path, options),
  post: <T = any>(path: string, options?: RequestOptions) => request<T>('POST', path, options),
  patch: <T = any>(path: string, options?: RequestOptions) => request<T>('PATCH', path, options),
  delete: <T = any>(path: string, options?: RequestOptions) => request<T>('DELETE', path, options),
};
