/** Payments: transactions (filters, status chips), a transaction with its attempts, refunds, capture and void; orders. */
import { useState } from 'preact/hooks';
import { call, type Page } from '../api';
import { FilterBar, dayEnd, dayStart, type FilterSpec } from '../filters';
import { label, money, toMinor, when } from '../format';
import { DataTable, ListState, useFilteredList } from '../list';
import { navigate } from '../router';
import { Chip, ErrorNote, Facts, Field, Link, Notice, PageHeader, Table, inputValue, useLoad, useSubmit } from '../ui';

export interface Transaction {
  id: string;
  order_id: string | null;
  subscription_id: string | null;
  customer_id: string | null;
  payment_instrument_id: string | null;
  amount_authorized: number;
  amount_captured: number;
  currency: string;
  payment_method: string;
  charge_type: string;
  country: string;
  status: string;
  created_at: string;
  updated_at: string;
}

interface Attempt {
  attempt_number: number;
  is_fallback: boolean;
  connector_id: string;
  provider_slug: string;
  status: string;
  started_at: string;
  finished_at: string | null;
  error_category: string | null;
  error_code: string | null;
  outcome: string | null;
  error_message: string | null;
  three_ds_status: string | null;
}

interface Refund {
  id: string;
  amount: number;
  currency: string;
  status: string;
  reason: string | null;
  error_code: string | null;
  created_at: string;
}

const TRANSACTION_STATUSES = [
  'pending',
  'pre_authorized',
  'authorized',
  'failed',
  'canceled',
  'voided',
  'charged_back',
  'refund_pending',
  'capture_pending',
  'refunded',
  'partially_refunded',
  'expired',
];
const METHODS = ['credit_card', 'debit_card', 'pix', 'boleto', 'wallet'];

const transactionFilters: FilterSpec[] = [
  { name: 'status', label: 'Status', kind: 'select', options: TRANSACTION_STATUSES },
  { name: 'payment_method', label: 'Method', kind: 'select', options: METHODS },
  { name: 'customer_reference', label: 'Customer or reference', kind: 'text', placeholder: 'cust_… or your order id' },
  { name: 'currency', label: 'Currency', kind: 'text', placeholder: 'USD' },
  { name: 'from', label: 'From', kind: 'date' },
  { name: 'to', label: 'To', kind: 'date' },
];

export function TransactionList() {
  const list = useFilteredList<Transaction>(
    '/merchant/transactions',
    transactionFilters.map((f) => f.name),
    (filters) => ({
      status: filters.status,
      payment_method: filters.payment_method,
      customer_reference: filters.customer_reference,
      currency: filters.currency.toUpperCase(),
      date_from: dayStart(filters.from),
      date_to: dayEnd(filters.to),
    }),
  );
  return (
    <>
      <PageHeader title="Payments" />
      <FilterBar specs={transactionFilters} values={list.filters} apply={list.apply} />
      <DataTable
        loaded={list.loaded}
        onPage={list.onPage}
        what="payments"
        caption="Payments"
        head={['Amount', 'Status', 'Method', 'Customer', 'Date']}
        empty={<p>No payments match. Payments appear here as soon as you charge.</p>}
        row={(tx) => (
          <tr key={tx.id}>
            <td>
              <Link to={`/payments/${tx.id}`}>{money(tx.amount_authorized, tx.currency)}</Link>
            </td>
            <td>
              <Chip status={tx.status} />
            </td>
            <td>{label(tx.payment_method)}</td>
            <td>{tx.customer_id ?? '—'}</td>
            <td>{when(tx.created_at)}</td>
          </tr>
        )}
      />
    </>
  );
}

const CAPTURABLE = ['pre_authorized'];
const REFUNDABLE = ['authorized', 'partially_refunded'];

function Operations(props: {
  tx: Transaction;
  refunded: number;
  changed: (tx: Transaction) => void;
  refundsChanged: () => void;
}) {
  const { tx } = props;
  const [amount, setAmount] = useState('');
  const [reason, setReason] = useState('');
  const [done, setDone] = useState<string | null>(null);
  const canCapture = CAPTURABLE.includes(tx.status);
  const canRefund = REFUNDABLE.includes(tx.status) && tx.amount_captured - props.refunded > 0;
  const operate = (what: 'capture' | 'void') =>
    useSubmit(async () => {
      const next = await call<Transaction>('POST', `/merchant/transactions/${tx.id}/${what}`, {});
      setDone(what === 'capture' ? 'Captured.' : 'Voided: the hold is released.');
      props.changed(next);
    });
  const capture = operate('capture');
  const voiding = operate('void');
  const refund = useSubmit(async () => {
    const minor = amount.trim() ? toMinor(amount, tx.currency) : undefined;
    if (minor !== undefined && !(minor > 0))
      throw new Error('Type a positive amount, or leave it empty for the whole balance.');
    await call('POST', `/merchant/transactions/${tx.id}/refunds`, {
      ...(minor ? { amount: minor } : {}),
      ...(reason.trim() ? { reason: reason.trim() } : {}),
    });
    setAmount('');
    setReason('');
    setDone('Refund requested.');
    props.refundsChanged();
    props.changed(await call<Transaction>('GET', `/merchant/transactions/${tx.id}`));
  });
  return (
    <section aria-labelledby="operations">
      <h2 id="operations">Actions</h2>
      {done && <Notice tone="success">{done}</Notice>}
      <div class="button-row">
        <form onSubmit={capture.submit}>
          <button type="submit" disabled={!canCapture || capture.busy} aria-describedby="capture-why">
            Capture
          </button>
        </form>
        <form onSubmit={voiding.submit}>
          <button type="submit" class="secondary" disabled={!canCapture || voiding.busy} aria-describedby="capture-why">
            Void
          </button>
        </form>
      </div>
      <p class="hint" id="capture-why">
        {canCapture
          ? 'The payment is authorized but not captured: capture takes the money, void releases the hold.'
          : `Capture and void apply only to pre-authorized payments; this one is ${label(tx.status).toLowerCase()}.`}
      </p>
      <ErrorNote error={capture.error || voiding.error} />
      <form onSubmit={refund.submit} class="inline-form">
        <Field label={`Refund amount (${tx.currency})`} hint="Empty: the whole refundable balance.">
          {(a) => (
            <input
              {...a}
              inputMode="decimal"
              value={amount}
              disabled={!canRefund}
              onInput={(e) => setAmount(inputValue(e))}
            />
          )}
        </Field>
        <Field label="Reason (optional)">
          {(a) => (
            <input
              {...a}
              value={reason}
              disabled={!canRefund}
              maxLength={500}
              onInput={(e) => setReason(inputValue(e))}
            />
          )}
        </Field>
        <button type="submit" disabled={!canRefund || refund.busy} aria-describedby="refund-why">
          Refund
        </button>
        <p class="hint" id="refund-why">
          {canRefund
            ? `Refundable: ${money(tx.amount_captured - props.refunded, tx.currency)}.`
            : 'Only captured payments with a balance left can be refunded.'}
        </p>
        <ErrorNote error={refund.error} />
      </form>
    </section>
  );
}

export function TransactionDetail(props: { id: string }) {
  const loaded = useLoad(() => call<Transaction>('GET', `/merchant/transactions/${props.id}`), [props.id]);
  const attempts = useLoad(() => call<Attempt[]>('GET', `/merchant/transactions/${props.id}/attempts`), [props.id]);
  const refunds = useLoad(
    () => call<Page<Refund>>('GET', `/merchant/transactions/${props.id}/refunds?limit=100`),
    [props.id],
  );
  const back = { to: '/payments', text: 'Payments' };
  if (loaded.state === 'loading') return <p role="status">Loading the payment…</p>;
  if (loaded.state === 'error')
    return (
      <>
        <PageHeader title="Payment" back={back} />
        <ErrorNote error={loaded.error} retry={loaded.reload} />
      </>
    );
  const tx = loaded.data;
  const refunded =
    refunds.state === 'ready'
      ? refunds.data.data.filter((r) => r.status !== 'failed').reduce((sum, r) => sum + r.amount, 0)
      : 0;
  return (
    <>
      <PageHeader title={`${money(tx.amount_authorized, tx.currency)} payment`} back={back}>
        <Chip status={tx.status} />
      </PageHeader>
      <Facts
        items={[
          ['Payment id', <code>{tx.id}</code>],
          ['Captured', money(tx.amount_captured, tx.currency)],
          ['Method', label(tx.payment_method)],
          ['Type', label(tx.charge_type)],
          ['Customer', tx.customer_id ?? '—'],
          ['Order', tx.order_id ? <Link to={`/orders/${tx.order_id}`}>{tx.order_id}</Link> : '—'],
          [
            'Subscription',
            tx.subscription_id ? <Link to={`/subscriptions/${tx.subscription_id}`}>{tx.subscription_id}</Link> : '—',
          ],
          ['Created', when(tx.created_at)],
        ]}
      />
      <Operations tx={tx} refunded={refunded} changed={loaded.set} refundsChanged={refunds.reload} />
      <section aria-labelledby="attempts">
        <h2 id="attempts">Attempts</h2>
        <ListState loaded={attempts} what="attempts" empty={<p>No provider was tried yet.</p>}>
          {(items) => (
            <ol class="timeline">
              {items.map((a) => (
                <li key={a.attempt_number}>
                  <p>
                    <strong>
                      #{a.attempt_number} {a.provider_slug}
                    </strong>{' '}
                    <Chip status={a.status} /> {a.is_fallback && <span class="chip info">Fallback</span>}
                  </p>
                  <p class="meta">
                    Connector {a.connector_id} · {when(a.started_at)}
                    {a.error_code && ` · ${a.error_category ?? 'error'}: ${a.error_code}`}
                    {a.error_message && ` · ${a.error_message}`}
                    {a.three_ds_status && ` · 3DS ${a.three_ds_status}`}
                  </p>
                </li>
              ))}
            </ol>
          )}
        </ListState>
      </section>
      <section aria-labelledby="refunds">
        <h2 id="refunds">Refunds</h2>
        <DataTable
          loaded={refunds}
          what="refunds"
          caption="Refunds"
          head={['Amount', 'Status', 'Reason', 'Date']}
          empty={<p>No refunds.</p>}
          row={(r) => (
            <tr key={r.id}>
              <td>{money(r.amount, r.currency)}</td>
              <td>
                <Chip status={r.status} />
              </td>
              <td>{r.reason ?? r.error_code ?? '—'}</td>
              <td>{when(r.created_at)}</td>
            </tr>
          )}
        />
      </section>
    </>
  );
}

interface Order {
  id: string;
  customer_id: string | null;
  external_order_id: string | null;
  order_type: string;
  recurrence: string;
  total_amount: number;
  currency: string;
  status: string;
  created_at: string;
  items?: {
    id: string;
    product_name: string;
    offer_name: string;
    quantity: number;
    unit_amount: number;
    total_amount: number;
    currency: string;
    billing_cycle: string | null;
  }[];
  status_history?: { from_status: string | null; to_status: string; triggered_by: string; created_at: string }[];
}

const ORDER_STATUSES = [
  'pending',
  'pre_authorized',
  'authorized',
  'failed',
  'canceled',
  'refund_pending',
  'partially_refunded',
  'refunded',
  'charged_back',
];
const orderFilters: FilterSpec[] = [
  { name: 'status', label: 'Status', kind: 'select', options: ORDER_STATUSES },
  {
    name: 'order_type',
    label: 'Type',
    kind: 'select',
    options: ['api', 'checkout', 'renewal', 'trial_setup', 'card_setup'],
  },
  { name: 'customer_id', label: 'Customer', kind: 'text', placeholder: 'cust_…' },
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
      customer_id: filters.customer_id,
      date_from: dayStart(filters.from),
      date_to: dayEnd(filters.to),
    }),
  );
  return (
    <>
      <PageHeader title="Orders" />
      <FilterBar specs={orderFilters} values={list.filters} apply={list.apply} />
      <DataTable
        loaded={list.loaded}
        onPage={list.onPage}
        what="orders"
        caption="Orders"
        head={['Total', 'Status', 'Type', 'Customer', 'Date']}
        empty={<p>No orders match.</p>}
        row={(o) => (
          <tr key={o.id}>
            <td>
              <Link to={`/orders/${o.id}`}>{money(o.total_amount, o.currency)}</Link>
            </td>
            <td>
              <Chip status={o.status} />
            </td>
            <td>{label(o.order_type)}</td>
            <td>{o.customer_id ?? '—'}</td>
            <td>{when(o.created_at)}</td>
          </tr>
        )}
      />
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
      <Facts
        items={[
          ['Order id', <code>{order.id}</code>],
          ['Type', label(order.order_type)],
          ['Recurrence', label(order.recurrence)],
          ['Customer', order.customer_id ?? '—'],
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
                  <Link to={`/payments/${tx.id}`}>{money(tx.amount_authorized, tx.currency)}</Link>{' '}
                  <Chip status={tx.status} /> {when(tx.created_at)}
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
                by {h.triggered_by} · {when(h.created_at)}
              </span>
            </li>
          ))}
        </ol>
      </section>
    </>
  );
}

export const openPayment = (id: string) => navigate(`/payments/${id}`);
