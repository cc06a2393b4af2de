/**
 * The Dashboard's one data mode for the tab, live or test, as Stripe's: every page that lists or sums payments,
 * subscriptions, events or webhook deliveries asks for that mode only (the two never mix). It is kept in
 * sessionStorage (it ends with the tab, like the session) for the merchant being worked on, and list pages carry
 * it in their URL (`?test=1`) so a shared link opens on the same data.
 */
import { useEffect, useState } from 'preact/hooks';
import { call, type Page } from './api';
import { navigate, routePath } from './router';
import { onSessionChange } from './session';

type Mode = 'live' | 'test';

export interface ModeState {
  merchantId: string;
  mode: Mode;
  /** Opened on test data because the merchant has no live connector (no live data can exist). */
  noLiveConnector: boolean;
}

const KEY = 'switchyard.dashboard.mode';
const TEST_FLAG = 'test';
/** The pages whose URL says the mode: the ones a person shares a link to. */
const LIST_PAGES = ['/overview', '/payments', '/subscriptions', '/webhooks'];

const listeners = new Set<() => void>();

function load(): ModeState | null {
  try {
    const raw = sessionStorage.getItem(KEY);
    return raw ? (JSON.parse(raw) as ModeState) : null;
  } catch {
    return null;
  }
}

let current: ModeState | null = load();
/** The merchant whose default is being asked: one question at a time. */
let asking: string | undefined;

function store(next: ModeState | null): void {
  current = next;
  if (next) sessionStorage.setItem(KEY, JSON.stringify(next));
  else sessionStorage.removeItem(KEY);
  for (const listener of listeners) listener();
}

// Signing out forgets the mode with the session: the next person starts on their merchant's default.
onSessionChange((session) => {
  if (!session) store(null);
});

const modeOf = (merchantId: string | undefined): ModeState | null =>
  merchantId && current?.merchantId === merchantId ? current : null;

const showsTest = () => current?.mode === 'test';

/** The livemode query parameter of the mode shown. */
export const livemodeParam = () => ({ livemode: showsTest() ? 'false' : 'true' });

/** `search` with the mode's URL flag set (test) or removed (live). */
export function withModeFlag(search: URLSearchParams): URLSearchParams {
  const next = new URLSearchParams(search);
  if (showsTest()) next.set(TEST_FLAG, '1');
  else next.delete(TEST_FLAG);
  return next;
}

const urlOf = (path: string, search: URLSearchParams) => {
  const text = search.toString();
  return `${path}${text ? `?${text}` : ''}`;
};

async function hasLiveConnector(): Promise<boolean> {
  for (let page = 1; ; page++) {
    const connectors = await call<Page<{ is_test_mode: boolean }>>(
      'GET',
      `/merchant/connectors?limit=100&page=${page}`,
    );
    if (connectors.data.some((c) => !c.is_test_mode)) return true;
    if (!connectors.meta.has_next) return false;
  }
}

/**
 * The default for a merchant: live, unless none of its connectors is live — then no live data can exist, and the
 * Dashboard opens on test data and says why. Asked once per tab and merchant; if the connectors cannot be read,
 * live (the mode that never shows test data as if it were real).
 */
async function defaultMode(merchantId: string): Promise<void> {
  if (asking === merchantId) return;
  asking = merchantId;
  const noLiveConnector = await hasLiveConnector().then(
    (live) => !live,
    () => false,
  );
  asking = undefined;
  if (!modeOf(merchantId)) store({ merchantId, mode: noLiveConnector ? 'test' : 'live', noLiveConnector });
}

/**
 * The mode for `merchantId` once known (null while the default is being asked, or signed out). A list page's URL
 * with the test flag opens on test data; on a list page, the URL is kept in step with the mode.
 */
export function useMode(merchantId: string | undefined, path: string, search: URLSearchParams): ModeState | null {
  const [, setTick] = useState(0);
  useEffect(() => {
    const update = () => setTick((tick) => tick + 1);
    listeners.add(update);
    return () => void listeners.delete(update);
  }, []);
  const state = modeOf(merchantId);
  const flagged = search.get(TEST_FLAG) === '1';
  useEffect(() => {
    if (!merchantId) return;
    if (flagged && state?.mode !== 'test') store({ merchantId, mode: 'test', noLiveConnector: false });
    else if (!state) void defaultMode(merchantId);
    else if (state.mode === 'test' && !flagged && LIST_PAGES.includes(path) && routePath() === path) {
      // Only while its page still shows: Preact may run this effect after a click has moved the tab on, and
      // writing the flag into the old page's URL then would take the person back there.
      navigate(urlOf(path, withModeFlag(search)), true);
    }
  }, [merchantId, path, search.toString(), state?.mode]);
  return flagged && state?.mode !== 'test' ? null : state;
}

/** Switches the tab to `mode` on this merchant; live drops the test flag from the URL (useMode adds it). */
function switchMode(merchantId: string, mode: Mode): void {
  store({ merchantId, mode, noLiveConnector: false });
  const search = new URLSearchParams(location.search);
  if (search.has(TEST_FLAG)) navigate(urlOf(routePath(), withModeFlag(search)), true);
}

/** The navigation's switch between live data (the usual default) and test data. */
export function ModeSwitch(props: { state: ModeState }) {
  const { state } = props;
  return (
    <label class="test-toggle">
      <input
        type="checkbox"
        checked={state.mode === 'test'}
        onChange={(event) => switchMode(state.merchantId, event.currentTarget.checked ? 'test' : 'live')}
      />{' '}
      Test data
    </label>
  );
}

/** On every page while test data is shown, so it is never taken for real money. */
export function ModeBanner(props: { state: ModeState }) {
  if (props.state.mode !== 'test') return null;
  return (
    <p class="test-banner" role="status">
      <strong>Viewing test data.</strong>{' '}
      {props.state.noLiveConnector
        ? 'This merchant has no live connector yet, so there is no live data to show.'
        : 'Payments and subscriptions here moved no real money.'}
    </p>
  );
}
