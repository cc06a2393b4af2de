/**
 * Subscriptions: the list (filters, pagination) and a subscription's page with its state, dunning counters,
 * transition timeline (who did what) and the operations its state allows, each disabled with the reason.
 */
import { useState } from 'preact/hooks';
import { call, query, type Answer, type Item, type Page } from '../api';
import { PaymentChip, type Transaction } from './transactions/common';
import { FilterBar, customerSearch, type FilterSpec } from '../filters';
import { livemodeParam } from '../mode';
import { day, label, money, when } from '../format';
import { DataTable, ListState, useFilteredList } from '../list';
import { Chip, ErrorNote, Facts, Link, Notice, PageHeader, useLoad } from '../ui';
import type { Subscription } from './subscriptions/model';
import { PaymentMethod, ChangeOfferFields, ChangeInstrumentFields } from './subscriptions/change-fields';
import { TestClockPanel } from './subscriptions/test-clock';
import { ClockBadge } from '../clock';
import { Operation, ReasonField } from './subscriptions/operation';

type Transition = Item<'getMerchantSubscriptionsIdTransitions'>;
type ClockAnswer = Answer<'getMerchantSubscriptionsIdTestClock'>;

const filterSpecs: FilterSpec[] = [
  {
    name: 'status',
    label: 'Status',
    kind: 'select',
    options: ['trialing', 'active', 'dunning', 'paused', 'cancelled', 'expired'],
  },
  { name: 'customer', label: 'Customer', kind: 'text', placeholder: 'e-mail or cust_…' },
  { name: 'current_offer_id', label: 'Offer', kind: 'text', placeholder: 'ofr_…' },
  { name: 'product_family_id', label: 'Product family', kind: 'text', placeholder: 'pfa_…' },
];

const customerOf = (s: Subscription) => s.customer_name ?? s.customer_email ?? s.customer_id;

export function SubscriptionList() {
  const list = useFilteredList<Subscription>(
    '/merchant/subscriptions',
    filterSpecs.map((f) => f.name),
    (filters) => ({
      ...livemodeParam(),
      status: filters.status,
      ...customerSearch(filters.customer, 'customer_id'),
      current_offer_id: filters.current_offer_id,
      product_family_id: filters.product_family_id,
    }),
  );
  return (
    <>
      <PageHeader title="Subscriptions" />
      <FilterBar specs={filterSpecs} values={list.filters} apply={list.apply} />
      <DataTable
        loaded={list.loaded}
        onPage={list.onPage}
        what="subscriptions"
        caption="Subscriptions"
        head={['Customer', 'Plan', 'Status', 'Amount', 'Next billing']}
        empty={<p>No subscriptions match. A subscription starts when a customer's first recurring payment succeeds.</p>}
        row={(s) => (
          <tr key={s.id}>
            <td>
              <Link to={`/subscriptions/${s.id}`}>{customerOf(s)}</Link>
            </td>
            <td>
              {s.product_name} · {s.offer_name}
            </td>
            <td>
              <Chip status={s.status} />
              {s.cancel_at_period_end && <span class="chip warn">Cancels {day(s.current_period_end)}</span>}
            </td>
            <td>
              {money(s.current_amount, s.currency)} / {label(s.billing_cycle).toLowerCase()}
            </td>
            <td>{s.status === 'paused' ? 'Paused' : day(s.next_billing_at)}</td>
          </tr>
        )}
      />
    </>
  );
}

function actorText(t: Transition): string {
  if (t.actor)
    return t.actor.name ? `${t.actor.name} (${t.actor.email ?? t.actor.type})` : (t.actor.email ?? t.actor.id);
  return t.triggered_by === 'admin'
    ? 'The merchant (API)'
    : t.triggered_by === 'customer'
      ? 'The customer'
      : 'Switchyard (automatic)';
}

/**
 * The subscription's charges, newest first: its customer's transactions that name it (the first charge, each
 * renewal and dunning retry). Shown so a renewal — on a test clock as in real time — can be seen where it happened.
 */
async function chargesOf(subscriptionId: string): Promise<Transaction[]> {
  const sub = await call<Subscription>('GET', `/merchant/subscriptions/${subscriptionId}`);
  const page = await call<Page<Transaction>>(
    'GET',
    `/merchant/transactions${query({ customer_reference: sub.customer_id, limit: 100 })}`,
  );
  return page.data.filter((tx) => tx.subscription_id === subscriptionId);
}

export function SubscriptionDetail(props: { id: string }) {
  const loaded = useLoad(() => call<Subscription>('GET', `/merchant/subscriptions/${props.id}`), [props.id]);
  const transitions = useLoad(
    () => call<Page<Transition> | Transition[]>('GET', `/merchant/subscriptions/${props.id}/transitions`),
    [props.id],
  );
  const charges = useLoad(() => chargesOf(props.id), [props.id]);
  const clock = useLoad(() => call<ClockAnswer>('GET', `/merchant/subscriptions/${props.id}/test-clock`), [props.id]);
  const onClock = clock.state === 'ready' ? clock.data.test_clock : null;
  const [message, setMessage] = useState<string | null>(null);
  const [cancelReason, setCancelReason] = useState('');
  const [pauseReason, setPauseReason] = useState('');
  const [offerId, setOfferId] = useState('');
  const [instrumentId, setInstrumentId] = useState('');
  const back = { to: '/subscriptions', text: 'Subscriptions' };
  if (loaded.state === 'loading') return <p role="status">Loading the subscription…</p>;
  if (loaded.state === 'error')
    return (
      <>
        <PageHeader title="Subscription" back={back} />
        <ErrorNote error={loaded.error} retry={loaded.reload} />
      </>
    );
  const sub = loaded.data;
  const path = `/merchant/subscriptions/${sub.id}`;
  const done = (next: Subscription, text: string) => {
    loaded.set(next);
    setMessage(text);
    transitions.reload();
  };
  const post = (action: string, body?: unknown) => () => call<Subscription>('POST', `${path}/${action}`, body ?? {});
  const withReason = (reason: string) => (reason.trim() ? { reason: reason.trim() } : {});
  return (
    <>
      <PageHeader title={`${customerOf(sub)} · ${sub.offer_name}`} back={back}>
        <span data-testid="subscription-status">
          <Chip status={sub.status} />
        </span>
        <ClockBadge clock={onClock} />
        {sub.cancel_at_period_end && (
          <span class="chip warn" data-testid="cancel-at-period-end">
            Cancels {day(sub.current_period_end)}
          </span>
        )}
      </PageHeader>
      {message && (
        <Notice tone="success">
          {message} The subscription is now <strong>{label(sub.status).toLowerCase()}</strong>
          {sub.cancel_at_period_end ? `, cancelling on ${day(sub.current_period_end)}` : ''}.
        </Notice>
      )}
      <Facts
        items={[
          ['Subscription id', <code>{sub.id}</code>],
          [
            'Customer',
            `${customerOf(sub)}${sub.customer_email && sub.customer_name ? ` <${sub.customer_email}>` : ''}`,
          ],
          ['Plan', `${sub.product_name} · ${sub.offer_name}`],
          ['Amount', `${money(sub.current_amount, sub.currency)} / ${label(sub.billing_cycle).toLowerCase()}`],
          ['Current period', `${day(sub.current_period_start)} – ${day(sub.current_period_end)}`],
          [
            'Next billing',
            sub.status === 'paused'
              ? 'None while paused'
              : sub.cancel_at_period_end
                ? 'None (cancels at period end)'
                : when(sub.next_billing_at),
          ],
          ['Cycles', `${sub.cycles_completed}${sub.cycle_limit ? ` of ${sub.cycle_limit}` : ''}`],
          ['Trial', sub.trial_end ? `${day(sub.trial_start)} – ${day(sub.trial_end)}` : 'None'],
          [
            'Dunning',
            sub.dunning_started_at
              ? `Since ${when(sub.dunning_started_at)}, ${sub.dunning_attempt_count} retries, next ${when(sub.dunning_next_retry_at)}`
              : `Not in dunning (${sub.dunning_attempt_count} retries)`,
          ],
          ['Payment method', <PaymentMethod sub={sub} />],
          ...(sub.cancelled_at
            ? ([
                [
                  'Cancelled',
                  `${when(sub.cancelled_at)}${sub.cancellation_reason ? ` · ${sub.cancellation_reason}` : ''}`,
                ],
              ] as [string, string][])
            : []),
          ...(sub.cancel_at_period_end && sub.cancellation_reason
            ? ([['Cancellation reason', sub.cancellation_reason]] as [string, string][])
            : []),
        ]}
      />
      <TestClockPanel
        sub={sub}
        advanced={() => {
          loaded.reload();
          clock.reload();
          transitions.reload();
          charges.reload();
        }}
      />
      <section aria-labelledby="charges">
        <h2 id="charges">Charges</h2>
        {onClock && (
          <p class="hint">
            Dates in real time: a charge is dated when it ran, while the periods and history above are in the test
            clock’s time.
          </p>
        )}
        <ListState loaded={charges} what="the charges" empty={<p>No charge yet.</p>}>
          {(items) => (
            <ul class="plain">
              {items.map((tx) => (
                <li key={tx.id}>
                  <Link to={`/payments/${tx.id}`}>{money(tx.amount, tx.currency)}</Link> <PaymentChip tx={tx} />{' '}
                  {label(tx.charge_type)} · {when(tx.created_at)}
                </li>
              ))}
            </ul>
          )}
        </ListState>
      </section>
      <section aria-labelledby="actions">
        <h2 id="actions">Actions</h2>
        <div class="operations">
          <Operation
            sub={sub}
            operation="pause"
            title="Pause"
            message="Paused: renewals stop until you resume."
            run={post('pause', withReason(pauseReason))}
            done={done}
          >
            <ReasonField value={pauseReason} set={setPauseReason} />
          </Operation>
          <Operation
            sub={sub}
            operation="resume"
            title="Resume"
            message="Resumed: renewals continue."
            run={post('resume')}
            done={done}
          />
          <Operation
            sub={sub}
            operation="cancel_at_period_end"
            title="Cancel at period end"
            message={`Scheduled: the subscription cancels on ${day(sub.current_period_end)}.`}
            run={post('cancel', { at_period_end: true, ...withReason(cancelReason) })}
            done={done}
          >
            <p>The customer keeps access until {day(sub.current_period_end)}; nothing more is charged.</p>
            <ReasonField value={cancelReason} set={setCancelReason} />
          </Operation>
          <Operation
            sub={sub}
            operation="reactivate"
            title="Reactivate"
            message="Reactivated: the scheduled cancellation is taken back."
            run={post('reactivate')}
            done={done}
          />
          <Operation
            sub={sub}
            operation="cancel_now"
            title="Cancel now"
            tone="danger"
            message="Cancelled."
            run={post('cancel', { at_period_end: false, ...withReason(cancelReason) })}
            done={done}
            confirmText="Cancel the subscription now"
          >
            <p>The subscription ends immediately and is never charged again. This cannot be undone.</p>
            <ReasonField value={cancelReason} set={setCancelReason} />
          </Operation>
          <Operation
            sub={sub}
            operation="change_offer"
            title="Change offer"
            message="The offer changed."
            run={post('change-offer', { to_offer_id: offerId })}
            done={done}
          >
            <ChangeOfferFields sub={sub} chosen={offerId} choose={setOfferId} />
          </Operation>
          <Operation
            sub={sub}
            operation="change_payment_instrument"
            title="Change payment method"
            message="The payment method changed."
            run={post('change-payment-instrument', { payment_instrument_id: instrumentId })}
            done={done}
          >
            <ChangeInstrumentFields sub={sub} chosen={instrumentId} choose={setInstrumentId} />
          </Operation>
        </div>
      </section>
      <section aria-labelledby="timeline">
        <h2 id="timeline">History</h2>
        <ListState loaded={transitions} what="the history" empty={<p>No history yet.</p>}>
          {(history) => (
            <ol class="timeline" data-testid="transitions">
              {history.map((t) => (
                <li key={t.id}>
                  <p>
                    <strong>{label(t.transition_type)}</strong>{' '}
                    <span class="meta">
                      {t.from_status ? `${label(t.from_status)} → ` : ''}
                      {label(t.to_status)}
                      {t.transition_type === 'cancellation' &&
                        t.to_status !== 'cancelled' &&
                        ' · takes effect at the period end'}
                    </span>
                  </p>
                  <p class="meta">
                    {actorText(t)} · {when(t.created_at)}
                    {t.reason && ` · “${t.reason}”`}
                    {typeof t.metadata?.change_charge_behavior === 'string' &&
                      ` · ${label(t.metadata.change_charge_behavior)}`}
                    {typeof t.metadata?.decline_code === 'string' && ` · declined: ${t.metadata.decline_code}`}
                    {t.order_id && ' · '}
                    {t.order_id && <Link to={`/orders/${t.order_id}`}>order</Link>}
                  </p>
                </li>
              ))}
            </ol>
          )}
        </ListState>
      </section>
    </>
  );
}
