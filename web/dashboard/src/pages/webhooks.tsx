/**
 * Webhooks: the merchant's endpoints (add, edit URL and events, disable or enable, rotate the signing secret, shown
 * once) and every delivery attempt with its payload and the endpoint's answer, redeliver. Owners and admins change
 * endpoints; the delivery list refreshes itself while the page is open so retries and redeliveries show up.
 */
import { useEffect, useState } from 'preact/hooks';
import { call, query, type Page } from '../api';
import { FilterBar, dayEnd, dayStart, type FilterSpec } from '../filters';
import { label, when } from '../format';
import { livemodeParam } from '../mode';
import { DataTable, useFilteredList } from '../list';
import { Chip, Notice, PageHeader, useLoad, type Loaded } from '../ui';
import type { WebhookConfig, EventType, Delivery } from './webhooks/model';
import { Endpoints } from './webhooks/endpoints';
import { DeliveryDetails, Redeliver } from './webhooks/delivery';

/** How often the delivery list is read again while the page is open (retries and redeliveries land by themselves). */
const REFRESH_MS = 5000;

const PAGE_SIZE = 20;

const deliveryFilters: FilterSpec[] = [
  { name: 'status', label: 'Status', kind: 'select', options: ['success', 'retrying', 'failed'] },
  { name: 'from', label: 'From', kind: 'date' },
  { name: 'to', label: 'To', kind: 'date' },
];

export function Webhooks() {
  const configs = useLoad(() => call<Page<WebhookConfig>>('GET', '/merchant/webhook-configs?limit=100'), []);
  const types = useLoad(() => call<EventType[]>('GET', '/merchant/webhook-event-types'), []);
  const toParams = (filters: Record<string, string>) => ({
    ...livemodeParam(),
    status: filters.status,
    from: dayStart(filters.from),
    to: dayEnd(filters.to),
  });
  const deliveries = useFilteredList<Delivery>(
    '/merchant/webhook-deliveries',
    deliveryFilters.map((f) => f.name),
    toParams,
    PAGE_SIZE,
  );
  const [refreshed, setRefreshed] = useState<Page<Delivery> | null>(null);
  const reloadKey = deliveries.loaded.state === 'ready' ? deliveries.loaded.data : null;
  // Quiet refresh: the rows are replaced in place (no "Loading" flash), so a retry's new status shows by itself.
  useEffect(() => {
    setRefreshed(null);
    const loaded = deliveries.loaded;
    if (loaded.state !== 'ready') return;
    const timer = setInterval(() => {
      const params = { page: deliveries.filters.page, limit: PAGE_SIZE, ...toParams(deliveries.filters) };
      call<Page<Delivery>>('GET', `/merchant/webhook-deliveries${query(params)}`).then(
        (page) => setRefreshed(page),
        () => undefined,
      );
    }, REFRESH_MS);
    return () => clearInterval(timer);
  }, [reloadKey]);
  const shown: Loaded<Page<Delivery>> =
    refreshed && deliveries.loaded.state === 'ready' ? { ...deliveries.loaded, data: refreshed } : deliveries.loaded;
  const active = new Set(
    configs.state === 'ready' ? configs.data.data.filter((c) => c.is_active).map((c) => c.id) : [],
  );
  return (
    <>
      <PageHeader title="Webhooks" />
      <Endpoints configs={configs} types={types.state === 'ready' ? types.data : []} />
      <section aria-labelledby="deliveries">
        <h2 id="deliveries">Deliveries</h2>
        <FilterBar specs={deliveryFilters} values={deliveries.filters} apply={deliveries.apply} />
        <Notice>Each attempt is a row; the list refreshes by itself every few seconds.</Notice>
        <DataTable
          loaded={shown}
          onPage={deliveries.onPage}
          what="deliveries"
          caption="Webhook deliveries"
          head={['Event', 'Status', 'Response', 'Attempt', 'Date', '']}
          empty={<p>No deliveries match.</p>}
          row={(d) => (
            <tr key={d.id} data-delivery={d.id}>
              <td class="break">
                {d.event_type}
                <span class="meta block">{d.target_url}</span>
                <DeliveryDetails delivery={d} />
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
                <Redeliver
                  delivery={d}
                  active={active.has(d.merchant_webhook_config_id)}
                  sent={() => deliveries.loaded.reload()}
                />
              </td>
            </tr>
          )}
        />
      </section>
    </>
  );
}
