/** A small history router under /dashboard/: the path after the base, search parameters, and navigation. */
import { useLayoutEffect, useState } from 'preact/hooks';

export const BASE = '/dashboard';
const listeners = new Set<() => void>();

export const routePath = (): string => location.pathname.slice(BASE.length) || '/';

export function navigate(to: string, replace = false): void {
  const url = `${BASE}${to}`;
  if (replace) history.replaceState(null, '', url);
  else history.pushState(null, '', url);
  window.scrollTo(0, 0);
  for (const listener of listeners) listener();
}

export function useRoute(): { path: string; search: URLSearchParams } {
  const [, setTick] = useState(0);
  // A layout effect: subscribed before any navigation queued during the first render can run.
  useLayoutEffect(() => {
    const update = () => setTick((tick) => tick + 1);
    listeners.add(update);
    window.addEventListener('popstate', update);
    return () => {
      listeners.delete(update);
      window.removeEventListener('popstate', update);
    };
  }, []);
  return { path: routePath(), search: new URLSearchParams(location.search) };
}

/** `/subscriptions/:id` against `/subscriptions/sub_1` → { id: 'sub_1' }; null when it does not match. */
export function match(pattern: string, path: string): Record<string, string> | null {
  const names: string[] = [];
  const regex = new RegExp(
    `^${pattern.replace(/:([a-z_]+)/g, (_, name: string) => {
      names.push(name);
      return '([^/]+)';
    })}/?$`,
  );
  const found = regex.exec(path);
  if (!found) return null;
  return Object.fromEntries(names.map((name, index) => [name, decodeURIComponent(found[index + 1])]));
}

/** Plain left clicks on in-app links navigate without a page load; others (new tab…) keep the browser's way. */
export function onLinkClick(event: MouseEvent, to: string): void {
  if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  event.preventDefault();
  navigate(to);
}
