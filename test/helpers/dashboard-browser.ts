/**
 * Headless Chromium (Debian's `chromium`, driven by playwright-core) for the merchant Dashboard e2e tests: one
 * persistent context per suite, and the check every page gets — screenshot under test-output/dashboard/, axe-core
 * with 0 serious or critical violations, no console error.
 */
import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { stack } from './stack';
import { journal } from './browser-journal';

export const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((candidate) =>
  fs.existsSync(candidate),
);
export const OUTPUT_DIR = path.join(__dirname, '..', '..', 'test-output', 'dashboard');
const AXE_SOURCE = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  targets: string[];
}

/** Browser code kept as text: the project compiles without the DOM types. */
const RUN_AXE = `axe.run(document, { resultTypes: ['violations'] }).then((result) =>
  result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map((n) => String(n.target)) })))`;

/** Skips the suite when Chromium is missing outside CI; in CI (.ci/run installs it) it must run. */
export function requireChromium(suite: Mocha.Context): void {
  if (CHROMIUM) return;
  if (process.env.CI) throw new Error("Chromium is required in CI (.ci/run installs Debian's chromium package)");
  console.log('    (skipped: no /usr/bin/chromium; install it with `apt-get install -y chromium`)');
  suite.skip();
}

export interface DashboardBrowser {
  context: BrowserContext;
  /** The Dashboard's address on the test stack (…/dashboard). */
  base: string;
  /** Console errors and page errors of every page opened through `newPage`. */
  problems: string[];
  newPage(): Promise<Page>;
  close(): Promise<void>;
}

export async function openDashboardBrowser(): Promise<DashboardBrowser> {
  fs.mkdirSync(OUTPUT_DIR, { recursive: true });
  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchyard-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1200, height: 800 },
    locale: 'en-US',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
  });
  const problems: string[] = [];
  const watch = (page: Page) => {
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(error.message));
    journal(page);
    return page;
  };
  let first: Page | undefined = context.pages()[0];
  return {
    context,
    // Read when used: the guides' newcomer run opens a browser with no test stack.
    get base() {
      return `${stack().url}/dashboard`;
    },
    problems,
    // The first call reuses the tab the context opened with; each later call gets a new tab (its own sessionStorage).
    newPage: async () => {
      const page = first ?? (await context.newPage());
      first = undefined;
      return watch(page);
    },
    close: async () => {
      await context.close();
      fs.rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}

/** Screenshot, axe-core check and console report of the page as it stands. */
export async function checkPage(page: Page, name: string, problems: string[]): Promise<void> {
  await page.waitForLoadState('networkidle');
  // Every list on the page done loading: a page may show several at once (a locator's waitFor wants exactly one
  // match), and the page's CSP forbids the string predicates of waitForFunction.
  const loading = page.locator('[role=status]:has-text("Loading")');
  for (const deadline = Date.now() + 30_000; (await loading.count()) > 0; await page.waitForTimeout(100)) {
    if (Date.now() > deadline) throw new Error(`${name}: still loading after 30 s`);
  }
  expect(await page.getByText('Loading the Dashboard…').count(), `${name}: boot placeholder left`).to.equal(0);
  await page.screenshot({ path: path.join(OUTPUT_DIR, `${name}.png`), fullPage: true });
  await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate<AxeViolation[]>(RUN_AXE);
  const serious = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(serious, `${name}: ${JSON.stringify(serious, null, 2)}`).to.deep.equal([]);
  expect(problems, `${name}: console errors`).to.deep.equal([]);
}

/** Signs in on the sign-in page the browser is on (or is sent to) and waits until the app leaves it. */
export async function signInThroughPage(page: Page, email: string, password: string): Promise<void> {
  await page.getByRole('heading', { name: 'Sign in to your merchant Dashboard' }).waitFor();
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL((url) => !url.pathname.endsWith('/sign-in'));
}

export interface DashboardSuite {
  /** The suite's browser, open from its first `before` hook to its `after` hook. */
  browser: DashboardBrowser;
  /** The suite's tab ('suite'), or the running test's ('test'); tests may replace it. Unset with 'none'. */
  page: Page;
  /** `checkPage` of `page` (or of another tab), with the browser's console report. */
  check(name: string, on?: Page): Promise<void>;
}

/**
 * The browser hooks of a Dashboard e2e suite, registered on the describe that calls it (before its own hooks, so the
 * suite is skipped before any setup when Chromium is missing): one browser for the suite, closed after it; the
 * console report emptied before each test, so an error is reported by the test that caused it; and the tabs:
 * 'suite' (default) opens one the tests share, in order; 'test' opens one per test — its own sessionStorage, so its
 * own sign-in — and closes it after; 'none' leaves opening tabs to the tests.
 */
export function useDashboardBrowser(tabs: 'suite' | 'test' | 'none' = 'suite'): DashboardSuite {
  const suite = {
    check: (name: string, on?: Page) => checkPage(on ?? suite.page, name, suite.browser.problems),
  } as DashboardSuite;
  before(async function () {
    requireChromium(this);
    suite.browser = await openDashboardBrowser();
    if (tabs === 'suite') suite.page = await suite.browser.newPage();
  });
  after(async () => {
    await suite.browser?.close();
  });
  beforeEach(async () => {
    suite.browser.problems.length = 0;
    if (tabs === 'test') suite.page = await suite.browser.newPage();
  });
  if (tabs === 'test') {
    afterEach(async () => {
      await suite.page?.close();
    });
  }
  return suite;
}
