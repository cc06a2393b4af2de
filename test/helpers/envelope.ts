/** Assertions for Document 1's response shapes (wrapped success, error envelope) shared by API tests. */
import { expect } from 'chai';
import type { ApiResponse } from './http';

/** ISO 8601 in UTC with millisecond precision. */
export const ISO_UTC_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
export const REQUEST_ID = /^req_[0-9A-Za-z]+$/;

const ERROR_FIELDS = ['type', 'code', 'message', 'details', 'request_id', 'timestamp'];

const describeResponse = (res: ApiResponse) => `${res.status} ${res.text.slice(0, 500)}`;

/** A timestamp that is ISO 8601 UTC with milliseconds and close to now (so really UTC, not local time). */
export function expectRecentTimestamp(value: unknown): void {
  expect(value).to.be.a('string').and.match(ISO_UTC_MS);
  expect(Math.abs(Date.parse(value as string) - Date.now())).to.be.below(60_000);
}

/** The X-Request-Id header is a req_ id; returns it. */
export function requestIdOf(res: ApiResponse): string {
  const id = res.headers.get('x-request-id');
  expect(id, `X-Request-Id on ${describeResponse(res)}`)
    .to.be.a('string')
    .and.match(REQUEST_ID);
  return id as string;
}

/** Frames of a Node stack trace or paths into the code base must never reach a client. */
export function expectNoStackTrace(res: ApiResponse): void {
  expect(res.text, describeResponse(res)).not.to.match(/\bat\s+(?:async\s+)?\S+\s+\(.*:\d+:\d+\)/);
  expect(res.text, describeResponse(res)).not.to.match(/\bat\s+\/\S+:\d+:\d+/);
  expect(res.text).not.to.include('node_modules');
  expect(res.text).not.to.match(/\.(?:ts|js):\d+/);
}

/** `{success: true, data, request_id, timestamp}` plus `meta` exactly when `list` is set; returns data. */
export function expectWrapped(res: ApiResponse, status: number, options: { list?: boolean } = {}): any {
  expect(res.status, describeResponse(res)).to.equal(status);
  const expected = ['success', 'data', 'request_id', 'timestamp', ...(options.list ? ['meta'] : [])];
  expect(res.body).to.be.an('object').that.has.all.keys(expected);
  expect(res.body.success).to.equal(true);
  expect(res.body.request_id).to.equal(requestIdOf(res));
  expectRecentTimestamp(res.body.timestamp);
  if (options.list) {
    expect(res.body.data).to.be.an('array');
    expect(res.body.meta).to.have.all.keys(['pagination']);
    expect(res.body.meta.pagination).to.have.all.keys([
      'page',
      'limit',
      'total',
      'total_pages',
      'has_next',
      'has_prev',
    ]);
  }
  return res.body.data;
}

/** `{error: {type, code, message, request_id, timestamp, details?}}` and nothing else; returns `error`. */
export function expectError(res: ApiResponse, status: number, type?: string, code?: string): any {
  expect(res.status, describeResponse(res)).to.equal(status);
  expect(res.headers.get('content-type')).to.match(/^application\/json/);
  expect(res.body).to.be.an('object').that.has.all.keys(['error']);
  const { error } = res.body;
  expect(error).to.include.all.keys(['type', 'code', 'message', 'request_id', 'timestamp']);
  for (const key of Object.keys(error)) expect(ERROR_FIELDS, `unexpected error field ${key}`).to.include(key);
  expect(error.type).to.be.a('string');
  if (type !== undefined) expect(error.type).to.equal(type);
  if (code !== undefined) expect(error.code).to.equal(code);
  expect(error.code)
    .to.be.a('string')
    .and.match(/^[A-Z][A-Z0-9_]*$/);
  expect(error.message).to.be.a('string').that.is.not.empty;
  expect(error.request_id).to.equal(requestIdOf(res));
  expectRecentTimestamp(error.timestamp);
  if ('details' in error) expect(error.details).to.be.an('object').and.not.be.an('array');
  expectNoStackTrace(res);
  return error;
}

/** A validation_error whose details are exactly `fields`, each mapped to a non-empty array of messages. */
export function expectFieldErrors(res: ApiResponse, fields: string[]): Record<string, string[]> {
  const error = expectError(res, 400, 'validation_error');
  expect(error.details, 'details').to.be.an('object');
  expect(Object.keys(error.details).sort()).to.deep.equal([...fields].sort());
  for (const [field, messages] of Object.entries(error.details)) {
    expect(messages, `details.${field}`).to.be.an('array').that.is.not.empty;
    for (const message of messages as unknown[]) expect(message).to.be.a('string').that.is.not.empty;
  }
  return error.details;
}
