/**
 * Customers: search by part of the e-mail or name (GET /merchant/customers?q=), and one customer with their
 * payments, subscriptions and saved cards (by brand and last four), each read from its own list filtered to them.
 */
import { useState } from 'preact/hooks';
import type { ComponentChildren } from 'preact';
import { call, type Item } from '../api';
import { day, label, money, when } from '../format';
import { DataTable, usePagedList, useFilteredList } from '../list';
import { Chip, ErrorNote, Facts, Field, inputValue, Link, PageHeader, useLoad } from '../ui';
import { ClockBadge, useTestClock } from '../clock';

type Customer = Item<'getMerchantCustomers'>;
type Transaction = Item<'getMerchantTransactions'>;
type Subscription = Item<'getMerchantSubscriptions'>;
type Instrument = Item<'getMerchantPaymentInstruments'>;

export function CustomerList() {
  const list = useFilteredList<Customer>('/merchant/customers', ['q', 'page'], (filters) => ({ q: filters.q }));
  const [text, setText] = useState(list.filters.q ?? '');
  return (
    <>
      <PageHeader title="Customers" />
      <form
        class="filters"
        role="search"
        onSubmit={(event) => {
          event.preventDefault();
          list.apply({ q: text.trim() });
        }}
      >
        <Field label="Search by e-mail or name" hint="Any part, any case: “hopper” or “grace@”.">
          {(a) => <input {...a} type="search" value={text} onInput={(e) => setText(inputValue(e))} />}
        </Field>
        <button type="submit">Search</button>
      </form>
      <DataTable
        loaded={list.loaded}
        onPage={list.onPage}
        what="customers"
        caption="Customers"
        head={['Name', 'E-mail', 'Created']}
        empty={<p>{list.filters.q ? 'No customer matches.' : 'No customers yet.'}</p>}
        row={(customer) => (
          <tr key={customer.id} data-customer={customer.id}>
            <td>
              <Link to={`/customers/${customer.id}`}>{customer.name ?? customer.email ?? customer.id}</Link>
            </td>
            <td class="break">{customer.email ?? '—'}</td>
            <td>{day(customer.created_at)}</td>
          </tr>
        )}
      />
    </>
  );
}

function Section(props: { title: string; children: ComponentChildren }) {
  return (
    <section class="card" role="region" aria-label={props.title}>
      <h2>{props.title}</h2>
      {props.children}
    </section>
  );
}

const cardText = (i: Instrument) => `${label(i.card_brand)} •••• ${i.last4}`;

export function CustomerDetail(props: { id: string }) {
  const customer = useLoad(() => call<Customer>('GET', `/merchant/customers/${props.id}`), [props.id]);
  const payments = usePagedList<Transaction>('/merchant/transactions', { customer_reference: props.id }, 10);
  const subscriptions = usePagedList<Subscription>('/merchant/subscriptions', { customer_id: props.id }, 10);
  const cards = usePagedList<Instrument>('/merchant/payment-instruments', { customer_id: props.id }, 20);
  const clock = useTestClock(customer.state === 'ready' ? customer.data.test_clock_id : null);
  const back = { to: '/customers', text: 'Customers' };
  if (customer.state === 'loading') return <p role="status">Loading the customer…</p>;
  if (customer.state === 'error') return <ErrorNote error={customer.error} retry={customer.reload} />;
  const c = customer.data;
  return (
    <>
      <PageHeader title={c.name ?? c.email ?? c.id} back={back}>
        <ClockBadge clock={clock} />
      </PageHeader>
      <Facts
        items={[
          ['E-mail', c.email ?? '—'],
          ['Phone', c.phone ?? '—'],
          ['Customer since', day(c.created_at)],
          ['Id', <code key="id">{c.id}</code>],
          [
            'Test clock',
            c.test_clock_id ? (
              <>
                <code>{c.test_clock_id}</code>: their subscriptions run in the clock’s time; payments are dated in real
                time
              </>
            ) : (
              'None (real time)'
            ),
          ],
        ]}
      />
      <Section title="Payments">
        <DataTable
          loaded={payments.loaded}
          onPage={payments.onPage}
          what="payments"
          caption="Payments"
          head={['Amount', 'Status', 'Method', 'Date']}
          empty={<p>No payments yet.</p>}
          row={(tx) => (
            <tr key={tx.id}>
              <td>
                <Link to={`/payments/${tx.id}`}>{money(tx.amount, tx.currency)}</Link>
              </td>
              <td>
                <Chip status={tx.status} />
              </td>
              <td>{label(tx.payment_method)}</td>
              <td>{when(tx.created_at)}</td>
            </tr>
          )}
        />
      </Section>
      <Section title="Subscriptions">
        <DataTable
          loaded={subscriptions.loaded}
          onPage={subscriptions.onPage}
          what="subscriptions"
          caption="Subscriptions"
          head={['Plan', 'Status', 'Amount', 'Next billing']}
          empty={<p>No subscriptions.</p>}
          row={(s) => (
            <tr key={s.id}>
              <td>
                <Link to={`/subscriptions/${s.id}`}>
                  {s.product_name} · {s.offer_name}
                </Link>
              </td>
              <td>
                <Chip status={s.status} />
              </td>
              <td>
                {money(s.current_amount, s.currency)} / {label(s.billing_cycle).toLowerCase()}
              </td>
              <td>{s.status === 'paused' ? 'Paused' : day(s.next_billing_at)}</td>
            </tr>
          )}
        />
      </Section>
      <Section title="Saved cards">
        <DataTable
          loaded={cards.loaded}
          onPage={cards.onPage}
          what="saved cards"
          caption="Saved cards"
          head={['Card', 'Expires', 'Status']}
          empty={<p>No saved cards.</p>}
          row={(i) => (
            <tr key={i.id}>
              <td>{cardText(i)}</td>
              <td>
                {i.exp_month}/{i.exp_year}
              </td>
              <td>
                <Chip status={i.status} />
              </td>
            </tr>
          )}
        />
      </Section>
    </>
  );
}
