/** Orders: the list (filters, pagination) and an order's page with its items, payments and status history. */
import { call, type Answer, type Item, type Page } from '../../api';
import { FilterBar, customerSearch, dayEnd, dayStart, type FilterSpec } from '../../filters';
import { label, money, when } from '../../format';
import { DataTable, ListState, useFilteredList } from '../../list';
import { Chip, ErrorNote, Facts, Link, PageHeader, Table, useLoad } from '../../ui';
import { ORDER_STATUSES } from '../../transaction-rules';
import { CustomerClock } from '../../clock';
import { filtered, CustomerName, type Transaction, PaymentChip } from './common';

type HistoryEntry = Answer<'getMerchantOrdersOrderId'>['status_history'][number];

const TRIGGERS: Record<string, string> = {
  api: 'the API',
  system: 'Switchyard',
  psp_webhook: "the provider's notification",
};

/** "by Ana Lima (ana@example.com)", "by API key Backend", or who moved it when nobody asked. */
function historyBy(entry: HistoryEntry): string {
  const { actor } = entry;
  if (!actor) return `by ${TRIGGERS[entry.triggered_by] ?? entry.triggered_by}`;
  if (actor.type === 'api_key') return `by API key ${actor.name ?? actor.id}`;
  const who = actor.name && actor.email ? `${actor.name} (${actor.email})` : (actor.name ?? actor.email ?? actor.id);
  return `by ${who}`;
}

/** A listed order; the order's own page also has its items and status history. */
type Order = Item<'getMerchantOrders'> & Partial<Pick<Answer<'getMerchantOrdersOrderId'>, 'items' | 'status_history'>>;

const orderFilters: FilterSpec[] = [
  { name: 'status', label: 'Status', kind: 'select', options: ORDER_STATUSES },
  {
    name: 'order_type',
    label: 'Type',
    kind: 'select',
    options: ['api', 'checkout', 'renewal', 'trial_setup', 'card_setup'],
  },
  { name: 'customer', label: 'Customer', kind: 'text', placeholder: 'e-mail or cust_…' },
  { name: 'from', label: 'From', kind: 'date' },
  { name: 'to', label: 'To', kind: 'date' },
];

export function OrderList() {
  const list = useFilteredList<Order>(
    '/merchant/orders',
    orderFilters.map((f) => f.name),
    (filters) => ({
      status: filters.status,
      order_type: filters.order_type,
      ...customerSearch(filters.customer, 'customer_id'),
      date_from: dayStart(filters.from),
      date_to: dayEnd(filters.to),
    }),
  );
  return (
    <>
      <PageHeader title="Orders" />
      <FilterBar specs={orderFilters} values={list.filters} apply={list.apply} />
      <div class="card-rows">
        <DataTable
          loaded={list.loaded}
          onPage={list.onPage}
          what="orders"
          caption="Orders"
          head={['Total', 'Status', 'Type', 'Customer', 'Date']}
          empty={<p>{filtered(list.filters) ? 'No orders match these filters.' : 'No orders yet.'}</p>}
          row={(o) => (
            <tr key={o.id}>
              <td data-label="Total">
                <Link to={`/orders/${o.id}`}>{money(o.total_amount, o.currency)}</Link>
              </td>
              <td data-label="Status">
                <Chip status={o.status} />
              </td>
              <td data-label="Type">{label(o.order_type)}</td>
              <td data-label="Customer">
                <CustomerName {...o} />
              </td>
              <td data-label="Date">{when(o.created_at)}</td>
            </tr>
          )}
        />
      </div>
    </>
  );
}

export function OrderDetail(props: { id: string }) {
  const loaded = useLoad(() => call<Order>('GET', `/merchant/orders/${props.id}`), [props.id]);
  const payments = useLoad(
    () => call<Page<Transaction>>('GET', `/merchant/transactions?order_id=${props.id}`),
    [props.id],
  );
  const back = { to: '/orders', text: 'Orders' };
  if (loaded.state === 'loading') return <p role="status">Loading the order…</p>;
  if (loaded.state === 'error')
    return (
      <>
        <PageHeader title="Order" back={back} />
        <ErrorNote error={loaded.error} retry={loaded.reload} />
      </>
    );
  const order = loaded.data;
  return (
    <>
      <PageHeader title={`${money(order.total_amount, order.currency)} order`} back={back}>
        <Chip status={order.status} />
      </PageHeader>
      <CustomerClock customerId={order.customer_id} what="order" />
      <Facts
        items={[
          ['Order id', <code>{order.id}</code>],
          ['Type', label(order.order_type)],
          ['Recurrence', label(order.recurrence)],
          ['Customer', <CustomerName {...order} withId />],
          ['Your reference', order.external_order_id ?? '—'],
          ['Created', when(order.created_at)],
        ]}
      />
      <section aria-labelledby="items">
        <h2 id="items">Items</h2>
        {(order.items ?? []).length === 0 ? (
          <p class="empty">No items.</p>
        ) : (
          <Table caption="Items" head={['Product', 'Offer', 'Quantity', 'Unit', 'Total']}>
            {order.items!.map((item) => (
              <tr key={item.id}>
                <td>{item.product_name}</td>
                <td>
                  {item.offer_name}
                  {item.billing_cycle && ` (${label(item.billing_cycle).toLowerCase()})`}
                </td>
                <td>{item.quantity}</td>
                <td>{money(item.unit_amount, item.currency)}</td>
                <td>{money(item.total_amount, item.currency)}</td>
              </tr>
            ))}
          </Table>
        )}
      </section>
      <section aria-labelledby="payments">
        <h2 id="payments">Payments</h2>
        <ListState loaded={payments} what="payments" empty={<p>No payment yet.</p>}>
          {(items) => (
            <ul class="plain">
              {items.map((tx) => (
                <li key={tx.id}>
                  <Link to={`/payments/${tx.id}`}>{money(tx.amount, tx.currency)}</Link> <PaymentChip tx={tx} />{' '}
                  {when(tx.created_at)}
                </li>
              ))}
            </ul>
          )}
        </ListState>
      </section>
      <section aria-labelledby="history">
        <h2 id="history">Status history</h2>
        <ol class="timeline">
          {(order.status_history ?? []).map((h, index) => (
            <li key={index}>
              {h.from_status ? `${label(h.from_status)} → ` : ''}
              {label(h.to_status)}{' '}
              <span class="meta">
                {historyBy(h)} · {when(h.created_at)}
              </span>
            </li>
          ))}
        </ol>
      </section>
    </>
  );
}
