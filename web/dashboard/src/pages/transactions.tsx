/** Payments: transactions (filters, status chips), a transaction with its attempts, refunds, capture and void; orders. */
import { call, type Item, type Page } from '../api';
import { FilterBar, customerSearch, dayEnd, dayStart, type FilterSpec } from '../filters';
import { livemodeParam } from '../mode';
import { label, money, when } from '../format';
import { DataTable, ListState, useFilteredList } from '../list';
import { navigate } from '../router';
import { Chip, ErrorNote, Facts, Link, PageHeader, useLoad } from '../ui';
import { CustomerClock } from '../clock';
import { TRANSACTION_STATUSES } from '../transaction-rules';
import { type Transaction, filtered, PaymentChip, CustomerName, type Refund } from './transactions/common';
import { Operations } from './transactions/operations';
import { ThreeDsLine } from './transactions/three-ds';
import { FailureHeadline } from '../failure-reason';

export { OrderDetail, OrderList } from './transactions/orders';

type Attempt = Item<'getMerchantTransactionsTransactionIdAttempts'>;

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
      <CustomerClock customerId={tx.customer_id} what="payment" />
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
                  </p>
                  <ThreeDsLine threeDs={a.three_ds} />
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

export const openPayment = (id: string) => navigate(`/payments/${id}`);
