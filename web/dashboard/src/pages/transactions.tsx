/** Payments: transactions (filters, status chips), a transaction with its attempts, refunds, capture and void; orders. */
import { useState } from 'preact/hooks';
import { call, type Answer, type Item, type Page } from '../api';
import { FilterBar, customerSearch, dayEnd, dayStart, type FilterSpec } from '../filters';
import { livemodeParam } from '../mode';
import { label, money, toMinor, when } from '../format';
import { DataTable, ListState, useFilteredList } from '../list';
import { navigate } from '../router';
import { Chip, ErrorNote, Facts, Field, Link, Notice, PageHeader, Table, inputValue, useLoad } from '../ui';
import { FailureHeadline } from '../failure-reason';
import { CAPTURABLE, ORDER_STATUSES, REFUNDABLE, TRANSACTION_STATUSES, VOIDABLE } from '../transaction-rules';

export type Transaction = Item<'getMerchantTransactions'>;

type Attempt = Item<'getMerchantTransactionsTransactionIdAttempts'>;

type Refund = Item<'getMerchantTransactionsTransactionIdRefunds'>;

const METHODS = ['credit_card', 'debit_card', 'pix', 'boleto', 'wallet'];

const transactionFilters: FilterSpec[] = [
  { name: 'status', label: 'Status', kind: 'select', options: TRANSACTION_STATUSES },
  { name: 'payment_method', label: 'Method', kind: 'select', options: METHODS },
  {
    name: 'customer',
    label: 'Customer or reference',
    kind: 'text',
    placeholder: 'e-mail, cust_… or your order id',
  },
  { name: 'currency', label: 'Currency', kind: 'text', placeholder: 'USD' },
  { name: 'from', label: 'From', kind: 'date' },
  { name: 'to', label: 'To', kind: 'date' },
];

export function TransactionList() {
  const list = useFilteredList<Transaction>(
    '/merchant/transactions',
    transactionFilters.map((f) => f.name),
    (filters) => ({
      ...livemodeParam(),
      status: filters.status,
      payment_method: filters.payment_method,
      ...customerSearch(filters.customer, 'customer_reference'),
      currency: filters.currency.toUpperCase(),
      date_from: dayStart(filters.from),
      date_to: dayEnd(filters.to),
    }),
  );
  return (
    <>
      <PageHeader title="Payments" />
      <FilterBar specs={transactionFilters} values={list.filters} apply={list.apply} />
      <div class="card-rows">
        <DataTable
          loaded={list.loaded}
          onPage={list.onPage}
          what="payments"
          caption="Payments"
          head={['Amount', 'Status', 'Method', 'Customer', 'Date']}
          empty={
            <p>
              {filtered(list.filters)
                ? 'No payments match these filters.'
                : 'No payments yet. Payments appear here as soon as you charge.'}
            </p>
          }
          row={(tx) => (
            <tr key={tx.id}>
              <td data-label="Amount">
                <Link to={`/payments/${tx.id}`}>{money(tx.amount, tx.currency)}</Link>
              </td>
              <td data-label="Status">
                <PaymentChip tx={tx} />
              </td>
              <td data-label="Method">{label(tx.payment_method)}</td>
              <td data-label="Customer">
                <CustomerName {...tx} />
              </td>
              <td data-label="Date">{when(tx.created_at)}</td>
            </tr>
          )}
        />
      </div>
    </>
  );
}

/**
 * What a person calls the payment's state: the API keeps a captured payment `authorized` (its status model has no
 * "captured"), so an authorized payment with money captured reads "Captured".
 */
export function paymentStatus(tx: Pick<Transaction, 'status' | 'amount_captured'>): { status: string; text: string } {
  if (tx.status === 'authorized' && tx.amount_captured > 0) return { status: 'succeeded', text: 'Captured' };
  return { status: tx.status, text: label(tx.status) };
}

export function PaymentChip(props: { tx: Pick<Transaction, 'status' | 'amount_captured'> }) {
  const shown = paymentStatus(props.tx);
  return <Chip status={shown.status} text={shown.text} />;
}

/** A money action waiting for its confirmation: what runs, and the sentence with the amount that asks for it. */
interface PendingAction {
  kind: 'capture' | 'void' | 'refund';
  question: string;
  confirm: string;
  refund?: { amount?: number; reason?: string };
}

function Operations(props: {
  tx: Transaction;
  refunded: number;
  changed: (tx: Transaction) => void;
  refundsChanged: () => void;
}) {
  const { tx } = props;
  const [amount, setAmount] = useState('');
  const [reason, setReason] = useState('');
  const [done, setDone] = useState<{ tone: 'success' | 'info'; text: string } | null>(null);
  const [asked, setAsked] = useState<PendingAction | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const canCapture = CAPTURABLE.includes(tx.status);
  const canVoid = VOIDABLE.includes(tx.status);
  const refundable = tx.amount_captured - props.refunded;
  const canRefund = REFUNDABLE.includes(tx.status) && refundable > 0;
  const held = money(tx.amount_authorized, tx.currency);

  const ask = (action: PendingAction) => {
    setError(null);
    setDone(null);
    setAsked(action);
  };
  const askRefund = (event: Event) => {
    event.preventDefault();
    const minor = amount.trim() ? toMinor(amount, tx.currency) : undefined;
    if (minor !== undefined && !(minor > 0)) {
      setError(new Error('Type a positive amount, or leave it empty for the whole balance.'));
      return;
    }
    if (minor !== undefined && minor > refundable) {
      setError(new Error(`At most ${money(refundable, tx.currency)} can be refunded.`));
      return;
    }
    const shown = money(minor ?? refundable, tx.currency);
    ask({
      kind: 'refund',
      question: `Refund ${shown} to the customer? This cannot be undone.`,
      confirm: `Refund ${shown}`,
      refund: { amount: minor, reason: reason.trim() || undefined },
    });
  };

  const run = async (action: PendingAction) => {
    if (action.kind !== 'refund') {
      const next = await call<Transaction>('POST', `/merchant/transactions/${tx.id}/${action.kind}`, {});
      props.changed(next);
      return action.kind === 'capture'
        ? { tone: 'success' as const, text: `Captured ${money(next.amount_captured, next.currency)}.` }
        : { tone: 'success' as const, text: `Voided: the hold of ${held} is released.` };
    }
    const refund = await call<Refund>('POST', `/merchant/transactions/${tx.id}/refunds`, {
      ...(action.refund?.amount ? { amount: action.refund.amount } : {}),
      ...(action.refund?.reason ? { reason: action.refund.reason } : {}),
    });
    setAmount('');
    setReason('');
    props.refundsChanged();
    props.changed(await call<Transaction>('GET', `/merchant/transactions/${tx.id}`));
    const shown = money(refund.amount, refund.currency);
    if (refund.status === 'failed')
      throw new Error(
        `The refund of ${shown} failed${refund.error_code ? ` (${refund.error_code})` : ''}; nothing was returned to the customer.`,
      );
    return refund.status === 'succeeded'
      ? { tone: 'success' as const, text: `Refunded ${shown}.` }
      : { tone: 'info' as const, text: `Refund of ${shown} requested; the provider has not confirmed it yet.` };
  };
  const confirm = () => {
    if (!asked) return;
    setBusy(true);
    setError(null);
    run(asked).then(
      (result) => {
        setBusy(false);
        setAsked(null);
        setDone(result);
      },
      (failure: unknown) => {
        setBusy(false);
        setAsked(null);
        setError(failure);
      },
    );
  };

  return (
    <section aria-labelledby="operations">
      <h2 id="operations">Actions</h2>
      {done && <Notice tone={done.tone}>{done.text}</Notice>}
      <div class="button-row">
        <button
          type="button"
          disabled={!canCapture || busy}
          aria-describedby="capture-why"
          onClick={() =>
            ask({
              kind: 'capture',
              question: `Capture ${held}? The customer's card is charged this amount.`,
              confirm: `Capture ${held}`,
            })
          }
        >
          Capture
        </button>
        <button
          type="button"
          class="secondary"
          disabled={!canVoid || busy}
          aria-describedby="capture-why"
          onClick={() =>
            ask({
              kind: 'void',
              question: `Void this payment and release the hold of ${held}? It cannot be captured afterwards.`,
              confirm: `Void ${held}`,
            })
          }
        >
          Void
        </button>
      </div>
      <p class="hint" id="capture-why">
        {canCapture
          ? 'The payment is authorized but not captured: capture takes the money, void releases the hold.'
          : `Capture and void apply only to pre-authorized payments; this one is ${paymentStatus(tx).text.toLowerCase()}.`}
      </p>
      {asked && (
        <div class="confirm" role="group" aria-label={asked.confirm}>
          <p>{asked.question}</p>
          <div class="button-row">
            <button
              type="button"
              class={asked.kind === 'capture' ? undefined : 'danger'}
              disabled={busy}
              onClick={confirm}
            >
              {busy ? 'Working…' : asked.confirm}
            </button>
            <button type="button" class="secondary" disabled={busy} onClick={() => setAsked(null)}>
              Keep as is
            </button>
          </div>
        </div>
      )}
      <ErrorNote error={error} />
      <form onSubmit={askRefund} class="inline-form">
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
        <button type="submit" disabled={!canRefund || busy} aria-describedby="refund-why">
          Refund
        </button>
        <p class="hint" id="refund-why">
          {canRefund
            ? `Refundable: ${money(refundable, tx.currency)}.`
            : 'Only captured payments with a balance left can be refunded.'}
        </p>
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
      <PageHeader title={`${money(tx.amount, tx.currency)} payment`} back={back}>
        <PaymentChip tx={tx} />
      </PageHeader>
      <FailureHeadline tx={tx} />
      <Facts
        items={[
          ['Payment id', <code>{tx.id}</code>],
          ['Authorized', money(tx.amount_authorized, tx.currency)],
          ['Captured', money(tx.amount_captured, tx.currency)],
          ['Method', label(tx.payment_method)],
          ['Type', label(tx.charge_type)],
          ['Customer', <CustomerName {...tx} withId />],
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
                    Connector {a.connector_name ?? a.connector_id} · {when(a.started_at)}
                    {a.error_code && ` · ${a.error_category ?? 'error'}: ${a.error_code}`}
                    {a.provider_code && ` (provider code ${a.provider_code})`}
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

/** Whether any list filter is set (the page number aside): an empty list then says "match", not "yet". */
const filtered = (filters: Record<string, string>) =>
  Object.entries(filters).some(([name, value]) => name !== 'page' && value !== '');

/** A customer as people know them: name and e-mail, the id only on detail pages. */
function CustomerName(props: {
  customer_id: string | null;
  customer_name: string | null;
  customer_email: string | null;
  withId?: boolean;
}) {
  if (!props.customer_id) return <>—</>;
  const known = props.customer_name ?? props.customer_email;
  return (
    <span class="customer">
      {known ?? <code>{props.customer_id}</code>}
      {props.customer_name && props.customer_email && <span class="meta"> {props.customer_email}</span>}
      {props.withId && known && (
        <>
          {' '}
          <code>{props.customer_id}</code>
        </>
      )}
    </span>
  );
}

export const openPayment = (id: string) => navigate(`/payments/${id}`);
