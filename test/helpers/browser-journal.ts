/**
 * What the test's browser tabs did, printed when a browser test fails: a locator that times out says only what it
 * waited for, not that the tab was sent elsewhere, that an API call failed, or that one never answered.
 */
import type { Page, Request } from 'playwright-core';

const SLOW_MS = 1_000;
const lines: string[] = [];
const pending = new Set<Request>();

const stamp = () => new Date().toISOString().slice(11, 23);
const note = (line: string) => lines.push(`${stamp()} ${line}`);

/** Records `page`'s navigations, failed or slow API calls, and the calls still open. */
export function journal(page: Page): void {
  page.on('framenavigated', (frame) => {
    if (frame === page.mainFrame()) note(`navigated to ${frame.url()}`);
  });
  page.on('request', (request) => {
    if (request.url().includes('/api/')) pending.add(request);
  });
  page.on('requestfinished', async (request) => {
    if (!pending.delete(request)) return;
    const response = await request.response();
    const took = Math.round(request.timing().responseEnd);
    if (!response || response.status() >= 400 || took > SLOW_MS) {
      note(`${request.method()} ${request.url()} → ${response?.status() ?? 'no response'} in ${took} ms`);
    }
  });
  page.on('requestfailed', (request) => {
    if (pending.delete(request)) note(`${request.method()} ${request.url()} failed: ${request.failure()?.errorText}`);
  });
}

/** The journal since the last call (cleared), with the API calls still unanswered. */
export function takeJournal(): string[] {
  const open = [...pending].map((request) => `still waiting: ${request.method()} ${request.url()}`);
  const taken = [...lines.splice(0), ...open];
  pending.clear();
  return taken;
}
