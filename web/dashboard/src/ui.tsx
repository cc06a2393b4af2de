/** Building blocks every page shares: links, async loading, tables, chips, forms (lists: list.tsx). */
import type { ComponentChildren, TargetedEvent } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, type Page } from './api';
import { label } from './format';
import { BASE, onLinkClick } from './router';
import { currentSession } from './session';

/** The signed-in person is an owner or admin of the merchant being worked on (a viewer only reads; the API agrees). */
export function canManageMerchant(): boolean {
  const session = currentSession();
  const mine = session?.memberships.find((m) => m.merchant_id === session.merchantId && m.status === 'active');
  return mine?.role === 'owner' || mine?.role === 'admin';
}

export function Link(props: { to: string; class?: string; children: ComponentChildren; 'aria-current'?: 'page' }) {
  return (
    <a
      href={`${BASE}${props.to}`}
      class={props.class}
      aria-current={props['aria-current']}
      onClick={(event) => onLinkClick(event, props.to)}
    >
      {props.children}
    </a>
  );
}

export type Loaded<T> =
  | { state: 'loading'; reload: () => void }
  | { state: 'error'; error: Error; reload: () => void }
  | { state: 'ready'; data: T; reload: () => void; set: (data: T) => void };

/** Runs `load` now and whenever `deps` change; a late answer to an older request is dropped. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): Loaded<T> {
  const [result, setResult] = useState<
    { state: 'loading' } | { state: 'error'; error: Error } | { state: 'ready'; data: T }
  >({ state: 'loading' });
  const generation = useRef(0);
  const run = useCallback(() => {
    const mine = ++generation.current;
    setResult({ state: 'loading' });
    load().then(
      (data) => mine === generation.current && setResult({ state: 'ready', data }),
      (error: Error) => mine === generation.current && setResult({ state: 'error', error }),
    );
  }, deps);
  useEffect(run, [run]);
  if (result.state === 'ready')
    return { ...result, reload: run, set: (data: T) => setResult({ state: 'ready', data }) };
  return { ...result, reload: run };
}

export function ErrorNote(props: { error: unknown; retry?: () => void }) {
  if (!props.error) return null;
  const error = props.error as Error;
  // Field errors only ({field: [problems]}): a business error's details are values (ids, null), not messages, and
  // must never break the page that shows the error (a crash here left "Change offer" stuck on "Working…").
  const details =
    error instanceof ApiError && error.details && typeof error.details === 'object'
      ? Object.entries(error.details).filter(
          (entry): entry is [string, string[]] =>
            Array.isArray(entry[1]) && entry[1].every((problem) => typeof problem === 'string'),
        )
      : [];
  return (
    <div class="notice error" role="alert">
      <p>{error.message || 'Something went wrong.'}</p>
      {details.length > 0 && (
        <ul>
          {details.map(([field, problems]) => (
            <li key={field}>
              {field}: {problems.join(', ')}
            </li>
          ))}
        </ul>
      )}
      {props.retry && (
        <button type="button" class="secondary" onClick={props.retry}>
          Try again
        </button>
      )}
    </div>
  );
}

export function Notice(props: { tone?: 'success' | 'info' | 'warn'; children: ComponentChildren }) {
  return (
    <div class={`notice ${props.tone ?? 'info'}`} role="status">
      {props.children}
    </div>
  );
}

export function Table(props: { caption: string; head: string[]; children: ComponentChildren }) {
  return (
    <div class="table-wrap" tabIndex={0} role="region" aria-label={props.caption}>
      <table>
        <caption class="visually-hidden">{props.caption}</caption>
        <thead>
          <tr>
            {props.head.map((heading) => (
              <th key={heading} scope="col">
                {heading}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>{props.children}</tbody>
      </table>
    </div>
  );
}

const TONES: Record<string, string> = {
  active: 'good',
  authorized: 'good',
  success: 'good',
  succeeded: 'good',
  processed: 'good',
  refunded: 'neutral',
  partially_refunded: 'neutral',
  trialing: 'info',
  pending: 'info',
  pre_authorized: 'info',
  capture_pending: 'info',
  refund_pending: 'info',
  paused: 'warn',
  dunning: 'warn',
  warning: 'warn',
  duplicate: 'neutral',
  ignored: 'neutral',
  failed: 'bad',
  error: 'bad',
  cancelled: 'bad',
  canceled: 'bad',
  voided: 'neutral',
  expired: 'neutral',
  charged_back: 'bad',
};

export function Chip(props: { status: string | boolean | null | undefined; text?: string }) {
  const status = typeof props.status === 'boolean' ? (props.status ? 'active' : 'inactive') : (props.status ?? '');
  return <span class={`chip ${TONES[status] ?? 'neutral'}`}>{props.text ?? label(status)}</span>;
}

export function Pager(props: { meta: Page<unknown>['meta']; onPage: (page: number) => void }) {
  const { meta } = props;
  return (
    <nav class="pager" aria-label="Pages">
      <button type="button" class="secondary" disabled={!meta.has_prev} onClick={() => props.onPage(meta.page - 1)}>
        Previous
      </button>
      <span>
        Page {meta.page} of {Math.max(meta.total_pages, 1)} · {meta.total} in all
      </span>
      <button type="button" class="secondary" disabled={!meta.has_next} onClick={() => props.onPage(meta.page + 1)}>
        Next
      </button>
    </nav>
  );
}

let fieldIds = 0;

/** A labelled control; the control gets the id (and the hint's aria-describedby) through the render function. */
export function Field(props: {
  label: string;
  hint?: string;
  children: (attributes: { id: string; 'aria-describedby'?: string }) => ComponentChildren;
}) {
  const [id] = useState(() => `field-${++fieldIds}`);
  const hintId = props.hint ? `${id}-hint` : undefined;
  return (
    <div class="field">
      <label for={id}>{props.label}</label>
      {props.children({ id, 'aria-describedby': hintId })}
      {props.hint && (
        <p class="hint" id={hintId}>
          {props.hint}
        </p>
      )}
    </div>
  );
}

export function PageHeader(props: {
  title: string;
  back?: { to: string; text: string };
  children?: ComponentChildren;
}) {
  useEffect(() => {
    document.title = `${props.title} · Switchyard Dashboard`;
  }, [props.title]);
  return (
    <header class="page-header">
      {props.back && (
        <Link to={props.back.to} class="back">
          ← {props.back.text}
        </Link>
      )}
      <div class="title-row">
        <h1>{props.title}</h1>
        {props.children && <div class="actions">{props.children}</div>}
      </div>
    </header>
  );
}

export function Facts(props: { items: [string, ComponentChildren][] }) {
  return (
    <dl class="facts">
      {props.items.map(([term, value]) => (
        <div key={term}>
          <dt>{term}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}

/** A form's submit with a busy state and its error; `onSubmit` throws to show the error. */
export function useSubmit(onSubmit: () => Promise<void>) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const submit = (event: TargetedEvent<HTMLFormElement>) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    onSubmit().then(
      () => setBusy(false),
      (failure: unknown) => {
        setBusy(false);
        setError(failure);
      },
    );
  };
  return { busy, error, submit, setError };
}

export const inputValue = (event: TargetedEvent<HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement>) =>
  event.currentTarget.value;
