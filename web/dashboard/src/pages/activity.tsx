/**
 * Activity: who did what on the merchant (GET /merchant/activity), newest first — keys minted, rolled and revoked,
 * members invited, changed and removed, connectors, routing, webhook endpoints and test clocks changed — with the
 * actor by name and what changed. Every member reads it.
 */
import type { Item } from '../api';
import { when, label } from '../format';
import { DataTable, usePagedList } from '../list';
import { useActorNames } from '../names';
import { PageHeader } from '../ui';

type ActivityRecord = Item<'getMerchantActivity'>;

const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

/** A value as a person reads it: times in local time, lists joined, anything else (numbers too) as JSON. */
function shown(value: unknown): string {
  if (value === null || value === undefined) return '—';
  if (typeof value === 'string') return ISO_TIME.test(value) ? when(value) : value;
  if (Array.isArray(value)) return value.map(shown).join(', ') || '—';
  return JSON.stringify(value);
}

function isMove(value: unknown): value is { from: unknown; to: unknown } {
  return typeof value === 'object' && value !== null && 'from' in value && 'to' in value;
}

function Changes(props: { changes: ActivityRecord['changes'] }) {
  const entries = Object.entries(props.changes ?? {});
  if (entries.length === 0) return <>—</>;
  return (
    <ul class="plain">
      {entries.map(([field, value]) => (
        <li key={field}>
          {label(field)}: {isMove(value) ? `${shown(value.from)} → ${shown(value.to)}` : shown(value)}
        </li>
      ))}
    </ul>
  );
}

export function Activity() {
  const list = usePagedList<ActivityRecord>('/merchant/activity');
  const actorText = useActorNames();
  return (
    <>
      <PageHeader title="Activity" />
      <p>Every administrative change to this merchant: who made it, when, and what changed.</p>
      <DataTable
        loaded={list.loaded}
        onPage={list.onPage}
        what="activity"
        caption="Activity"
        head={['When', 'Action', 'By', 'What changed']}
        empty={<p>Nothing recorded yet.</p>}
        row={(record) => (
          <tr key={record.id} data-activity={record.action}>
            <td>{when(record.created_at)}</td>
            <td>{label(record.action)}</td>
            <td class="break">{actorText(record.actor)}</td>
            <td class="break">
              <Changes changes={record.changes} />
            </td>
          </tr>
        )}
      />
    </>
  );
}
