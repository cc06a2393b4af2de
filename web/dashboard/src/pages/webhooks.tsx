/** Webhooks: the merchant's endpoints, every delivery attempt with status and response code, redeliver. */
import { useState } from 'preact/hooks';
import { call, type Page } from '../api';
import { FilterBar, dayEnd, dayStart, type FilterSpec } from '../filters';
import { label, when } from '../format';
import { DataTable, useFilteredList } from '../list';
import { Chip, ErrorNote, Notice, PageHeader, useLoad } from '../ui';

interface WebhookConfig {
  id: string;
  url: string;
  description: string | null;
  event_filter: string[] | null;
  is_active: boolean;
  last_triggered_at: string | null;
}

interface Delivery {
  id: string;
  merchant_webhook_config_id: string;
  event_id: string;
  event_type: string;
  target_url: string;
  attempt_number: number;
  http_status_code: number | null;
  status: string;
  trigger: string;
  error: string | null;
  created_at: string;
  next_retry_at: string | null;
}

const deliveryFilters: FilterSpec[] = [
  { name: 'status', label: 'Status', kind: 'select', options: ['succeeded', 'retrying', 'failed'] },
  { name: 'from', label: 'From', kind: 'date' },
  { name: 'to', label: 'To', kind: 'date' },
];

function Redeliver(props: { delivery: Delivery; active: boolean }) {
  const [state, setState] = useState<'idle' | 'busy' | 'sent'>('idle');
  const [error, setError] = useState<unknown>(null);
  const send = () => {
    setState('busy');
    setError(null);
    call('POST', `/merchant/webhook-configs/${props.delivery.merchant_webhook_config_id}/redeliver`, {
      event_id: props.delivery.event_id,
    }).then(
      () => setState('sent'),
      (failure: unknown) => {
        setState('idle');
        setError(failure);
      },
    );
  };
  if (state === 'sent') return <span role="status">Queued</span>;
  return (
    <>
      <button
        type="button"
        class="secondary small"
        disabled={!props.active || state === 'busy'}
        title={props.active ? undefined : 'The endpoint is inactive'}
        aria-label={`Redeliver ${props.delivery.event_type}`}
        onClick={send}
      >
        Redeliver
      </button>
      <ErrorNote error={error} />
    </>
  );
}

export function Webhooks() {
  const configs = useLoad(() => call<Page<WebhookConfig>>('GET', '/merchant/webhook-configs?limit=100'), []);
  const deliveries = useFilteredList<Delivery>(
    '/merchant/webhook-deliveries',
    deliveryFilters.map((f) => f.name),
    (filters) => ({ status: filters.status, from: dayStart(filters.from), to: dayEnd(filters.to) }),
  );
  const active = new Set(
    configs.state === 'ready' ? configs.data.data.filter((c) => c.is_active).map((c) => c.id) : [],
  );
  return (
    <>
      <PageHeader title="Webhooks" />
      <section aria-labelledby="endpoints">
        <h2 id="endpoints">Endpoints</h2>
        <DataTable
          loaded={configs}
          what="endpoints"
          caption="Webhook endpoints"
          head={['URL', 'Status', 'Events', 'Last sent']}
          empty={<p>No webhook endpoint yet. Add one with the API (POST /merchants/&lt;id&gt;/webhook-configs).</p>}
          row={(c) => (
            <tr key={c.id}>
              <td class="break">
                {c.url}
                {c.description && <span class="meta"> · {c.description}</span>}
              </td>
              <td>
                <Chip status={c.is_active} text={c.is_active ? 'Active' : 'Inactive'} />
              </td>
              <td>{c.event_filter ? c.event_filter.join(', ') : 'All events'}</td>
              <td>{when(c.last_triggered_at)}</td>
            </tr>
          )}
        />
      </section>
      <section aria-labelledby="deliveries">
        <h2 id="deliveries">Deliveries</h2>
        <FilterBar specs={deliveryFilters} values={deliveries.filters} apply={deliveries.apply} />
        <Notice>Redeliver sends the event once more to its endpoint; the new attempt appears here in a moment.</Notice>
        <DataTable
          loaded={deliveries.loaded}
          onPage={deliveries.onPage}
          what="deliveries"
          caption="Webhook deliveries"
          head={['Event', 'Status', 'Response', 'Attempt', 'Date', '']}
          empty={<p>No deliveries match.</p>}
          row={(d) => (
            <tr key={d.id}>
              <td>
                {d.event_type}
                <span class="meta block">{d.target_url}</span>
              </td>
              <td>
                <Chip status={d.status === 'retrying' ? 'pending' : d.status} text={label(d.status)} />
              </td>
              <td>{d.http_status_code ?? d.error ?? '—'}</td>
              <td>
                {d.attempt_number}
                {d.trigger === 'manual' && ' (manual)'}
              </td>
              <td>{when(d.created_at)}</td>
              <td>
                <Redeliver delivery={d} active={active.has(d.merchant_webhook_config_id)} />
              </td>
            </tr>
          )}
        />
      </section>
    </>
  );
}
