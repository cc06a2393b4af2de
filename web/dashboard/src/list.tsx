/**
 * The one way a page shows a list: its loading, error and empty states, the table, and the pager when the list
 * pages; plus the hook that loads one page of a list endpoint, its page number in the URL (with the filters) or
 * in the component.
 */
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { call, query, type Page } from './api';
import { useFilters } from './filters';
import { ErrorNote, Pager, Table, useLoad, type Loaded } from './ui';

/** A list endpoint answers a page (`{data, meta}`); a few sub-resources answer a bare array. */
type ListAnswer<T> = Page<T> | T[];

const itemsOf = <T,>(answer: ListAnswer<T>): T[] => (Array.isArray(answer) ? answer : answer.data);

/** What a list reads of a `Loaded` (never `set`, so any list answer's `Loaded` fits). */
type Shown<T> =
  { state: 'loading' } | { state: 'error'; error: Error; reload: () => void } | { state: 'ready'; data: ListAnswer<T> };

/** Loading, error and empty states around a list; `children` renders the items when there are some. */
export function ListState<T>(props: {
  loaded: Shown<T>;
  what: string;
  empty: ComponentChildren;
  children: (items: T[]) => ComponentChildren;
}) {
  const { loaded } = props;
  if (loaded.state === 'loading') {
    return (
      <p class="loading" role="status" aria-live="polite">
        Loading {props.what}…
      </p>
    );
  }
  if (loaded.state === 'error') return <ErrorNote error={loaded.error} retry={loaded.reload} />;
  const items = itemsOf(loaded.data);
  if (items.length === 0) return <div class="empty">{props.empty}</div>;
  return <>{props.children(items)}</>;
}

/** A list as a table: one `row` (a `<tr>`) per item, and the pager below when `onPage` is given. */
export function DataTable<T>(props: {
  loaded: Loaded<Page<T>>;
  what: string;
  caption: string;
  head: string[];
  empty: ComponentChildren;
  row: (item: T) => ComponentChildren;
  onPage?: (page: number) => void;
}) {
  const { loaded, onPage } = props;
  return (
    <ListState loaded={loaded} what={props.what} empty={props.empty}>
      {(items) => (
        <>
          <Table caption={props.caption} head={props.head}>
            {items.map(props.row)}
          </Table>
          {onPage && loaded.state === 'ready' && <Pager meta={loaded.data.meta} onPage={onPage} />}
        </>
      )}
    </ListState>
  );
}

type Params = Record<string, string | number | undefined | null>;

export interface PagedList<T> {
  loaded: Loaded<Page<T>>;
  onPage: (page: number) => void;
}

/** One page of `path` with `params`; the page number lives in the component (lists without filters). */
export function usePagedList<T>(path: string, params: Params = {}, limit = 20): PagedList<T> {
  const [page, setPage] = useState(1);
  const loaded = useLoad(
    () => call<Page<T>>('GET', `${path}${query({ ...params, page, limit })}`),
    [path, page, limit, JSON.stringify(params)],
  );
  return { loaded, onPage: setPage };
}

/**
 * One page of `path` filtered by the URL's filters (shareable, kept on reload); `toParams` maps the filter values
 * onto the endpoint's query parameters. The page number is in the URL too.
 */
export function useFilteredList<T>(
  path: string,
  names: string[],
  toParams: (filters: Record<string, string>) => Params,
  limit = 20,
): PagedList<T> & { filters: Record<string, string>; apply: (next: Record<string, string>) => void } {
  const [filters, apply] = useFilters(names);
  const loaded = useLoad(
    () => call<Page<T>>('GET', `${path}${query({ page: filters.page, limit, ...toParams(filters) })}`),
    [path, limit, JSON.stringify(filters)],
  );
  return { loaded, filters, apply, onPage: (page) => apply({ ...filters, page: String(page) }) };
}
