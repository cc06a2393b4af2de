/**
 * List filters kept in the URL (shareable, survive reload), and the list's page number with them; applying them
 * keeps the data mode's flag (mode.tsx).
 */
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { withModeFlag } from './mode';
import { navigate, routePath } from './router';
import { Field, inputValue } from './ui';

export function useFilters(names: string[]): [Record<string, string>, (next: Record<string, string>) => void] {
  const search = new URLSearchParams(location.search);
  const values = Object.fromEntries(['page', ...names].map((name) => [name, search.get(name) ?? '']));
  const apply = (next: Record<string, string>) => {
    const query = withModeFlag(new URLSearchParams(Object.entries(next).filter(([, value]) => value !== '')));
    const text = query.toString();
    navigate(`${routePath()}${text ? `?${text}` : ''}`, true);
  };
  return [values, apply];
}

/**
 * A "customer" filter box: an e-mail searches by the customer's e-mail (customer_email), anything else is sent as
 * `idParam` (a cust_… id, or on payments also your order reference).
 */
export const customerSearch = (value: string, idParam: string): Record<string, string> =>
  value.includes('@') ? { customer_email: value.trim() } : { [idParam]: value.trim() };

/** Local ISO date (yyyy-mm-dd from a date input) → the API's date-time bound. */
export const dayStart = (value: string) => (value ? new Date(`${value}T00:00:00`).toISOString() : '');
export const dayEnd = (value: string) => (value ? new Date(`${value}T23:59:59.999`).toISOString() : '');

export type FilterSpec =
  | { name: string; label: string; kind: 'select'; options: string[] }
  | { name: string; label: string; kind: 'text'; placeholder?: string }
  | { name: string; label: string; kind: 'date' };

export function FilterBar(props: {
  specs: FilterSpec[];
  values: Record<string, string>;
  apply: (next: Record<string, string>) => void;
  children?: ComponentChildren;
}) {
  const [draft, setDraft] = useState(props.values);
  const set = (name: string, value: string) => setDraft({ ...draft, [name]: value });
  return (
    <form
      class="filters"
      aria-label="Filters"
      onSubmit={(event) => {
        event.preventDefault();
        props.apply({ ...draft, page: '' });
      }}
    >
      {props.specs.map((spec) => (
        <Field key={spec.name} label={spec.label}>
          {(a) =>
            spec.kind === 'select' ? (
              <select {...a} value={draft[spec.name] ?? ''} onChange={(e) => set(spec.name, inputValue(e))}>
                <option value="">Any</option>
                {spec.options.map((option) => (
                  <option key={option} value={option}>
                    {option.replace(/_/g, ' ')}
                  </option>
                ))}
              </select>
            ) : spec.kind === 'date' ? (
              <input {...a} type="date" value={draft[spec.name] ?? ''} onInput={(e) => set(spec.name, inputValue(e))} />
            ) : (
              <input
                {...a}
                type="text"
                placeholder={spec.placeholder}
                value={draft[spec.name] ?? ''}
                onInput={(e) => set(spec.name, inputValue(e))}
              />
            )
          }
        </Field>
      ))}
      <div class="filter-actions">
        <button type="submit">Apply</button>
        <button
          type="button"
          class="secondary"
          onClick={() => {
            setDraft({});
            props.apply({});
          }}
        >
          Clear
        </button>
      </div>
    </form>
  );
}
