/**
 * Subscriptions: the list (filters, pagination) and a subscription's page with its state, dunning counters,
 * transition timeline (who did what) and the operations its state allows, each disabled with the reason.
 */
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { call, query, type Answer, type Item, type Page } from '../api';
import { PaymentChip, type Transaction } from './transactions';
import { FilterBar, customerSearch, type FilterSpec } from '../filters';
import { livemodeParam } from '../mode';
import { day, label, money, when } from '../format';
import { DataTable, ListState, useFilteredList } from '../list';
import { BEHAVIOURS, whyNot, type Operation } from '../subscription-rules';
import { Chip, ErrorNote, Facts, Field, Link, Notice, PageHeader, inputValue, useLoad, useSubmit } from '../ui';

export type Subscription = Item<'getMerchantSubscriptions'>;

type Transition = Item<'getMerchantSubscriptionsIdTransitions'>;

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

/** One operation: a button (disabled with the reason) that opens its form; `run` returns the new subscription. */
function Operation(props: {
  sub: Subscription;
  operation: Operation;
  title: string;
  tone?: 'danger';
  done: (next: Subscription, message: string) => void;
  run: () => Promise<Subscription>;
  message: string;
  children?: ComponentChildren;
  confirmText?: string;
}) {
  const [open, setOpen] = useState(false);
  const refusal = whyNot(props.sub, props.operation);
  const whyId = `why-${props.operation}`;
  const { busy, error, submit } = useSubmit(async () => {
    const next = await props.run();
    setOpen(false);
    props.done(next, props.message);
  });
  return (
    <div class="operation">
      <button
        type="button"
        class={props.tone === 'danger' ? 'danger' : 'secondary'}
        disabled={refusal !== null}
        aria-describedby={refusal ? whyId : undefined}
        aria-expanded={open}
        onClick={() => setOpen(!open)}
      >
        {props.title}
      </button>
      {refusal && (
        <p class="hint" id={whyId}>
          {refusal}
        </p>
      )}
      {open && refusal === null && (
        <form class="operation-form" onSubmit={submit} aria-label={props.title}>
          {props.children}
          <ErrorNote error={error} />
          <div class="button-row">
            <button type="submit" class={props.tone === 'danger' ? 'danger' : undefined} disabled={busy}>
              {busy ? 'Working…' : (props.confirmText ?? `Confirm: ${props.title.toLowerCase()}`)}
            </button>
            <button type="button" class="secondary" onClick={() => setOpen(false)}>
              Keep as is
            </button>
          </div>
        </form>
      )}
    </div>
  );
}

function ReasonField(props: { value: string; set: (value: string) => void; label?: string }) {
  return (
    <Field label={props.label ?? 'Reason (optional)'} hint="Kept on the subscription's history.">
      {(a) => <input {...a} maxLength={500} value={props.value} onInput={(e) => props.set(inputValue(e))} />}
    </Field>
  );
}

/** A listed offer; the offer's own answer also has its prices. */
type Offer = Item<'getMerchantOffers'> & Partial<Pick<Answer<'getMerchantOffersId'>, 'prices'>>;
type Product = Pick<Item<'getMerchantProducts'>, 'id' | 'name'>;
type Instrument = Item<'getMerchantPaymentInstruments'>;

/**
 * The products whose offers a subscription may move to (the API refuses the others, OFFER_NOT_IN_FAMILY): its
 * family's products, or only its own product when that product has no family.
 */
async function eligibleProducts(sub: Subscription): Promise<Product[]> {
  if (!sub.product_family_id) return [{ id: sub.product_id, name: sub.product_name }];
  const page = await call<Page<Product>>(
    'GET',
    `/merchant/products${query({ product_family_id: sub.product_family_id, limit: 100 })}`,
  );
  return page.data;
}

/** A family's offer pair charges as its transition says; a standalone product's change waits for the renewal. */
async function changeBehaviour(sub: Subscription, toOfferId: string): Promise<{ change_charge_behavior: string }> {
  if (!sub.product_family_id) return { change_charge_behavior: 'next_renew' };
  return call<Answer<'getMerchantOfferTransitionsEffectiveBehavior'>>(
    'GET',
    `/merchant/offer-transitions/effective-behavior${query({ from_offer_id: sub.current_offer_id, to_offer_id: toOfferId })}`,
  );
}

/** Offers the subscription can move to (same family, active, recurring), with a preview of the change. */
function ChangeOfferFields(props: { sub: Subscription; chosen: string; choose: (offerId: string) => void }) {
  const { sub } = props;
  const offers = useLoad(async () => {
    const products = await eligibleProducts(sub);
    const lists = await Promise.all(
      products.map((p) =>
        call<Page<Offer>>('GET', `/merchant/offers${query({ product_id: p.id, status: 'active', limit: 100 })}`).then(
          (page) => page.data.map((offer) => ({ ...offer, product: p.name })),
        ),
      ),
    );
    // One-time offers (billing cycle none) cannot carry a subscription: the API answers OFFER_UNAVAILABLE.
    return lists.flat().filter((offer) => offer.id !== sub.current_offer_id && offer.billing_cycle !== 'none');
  }, [sub.product_family_id, sub.product_id, sub.current_offer_id]);
  const preview = useLoad(async () => {
    if (!props.chosen) return null;
    const [behaviour, offer] = await Promise.all([
      changeBehaviour(sub, props.chosen),
      call<Offer>('GET', `/merchant/offers/${props.chosen}`),
    ]);
    return { behaviour, offer, price: offer.prices?.find((p) => p.currency === sub.currency) ?? null };
  }, [props.chosen]);
  if (offers.state === 'loading') return <p role="status">Loading the family's offers…</p>;
  if (offers.state === 'error') return <ErrorNote error={offers.error} retry={offers.reload} />;
  if (offers.data.length === 0) return <p class="empty">No other active offer in this product family.</p>;
  return (
    <>
      <Field
        label="New offer"
        hint={
          sub.product_family_id
            ? 'Only offers of the same product family.'
            : 'Only offers of the same product: it belongs to no product family.'
        }
      >
        {(a) => (
          <select {...a} required value={props.chosen} onChange={(e) => props.choose(inputValue(e))}>
            <option value="">Choose an offer</option>
            {offers.data.map((offer) => (
              <option key={offer.id} value={offer.id}>
                {offer.product} · {offer.name} ({label(offer.billing_cycle).toLowerCase()})
              </option>
            ))}
          </select>
        )}
      </Field>
      {props.chosen && preview.state === 'loading' && <p role="status">Working out the charge…</p>}
      {preview.state === 'error' && <ErrorNote error={preview.error} />}
      {preview.state === 'ready' && preview.data && (
        <Notice>
          <strong>What the customer is charged:</strong>{' '}
          {BEHAVIOURS[preview.data.behaviour.change_charge_behavior] ??
            label(preview.data.behaviour.change_charge_behavior)}{' '}
          {preview.data.price
            ? `New price: ${money(preview.data.price.amount, preview.data.price.currency)} ${cycleText(preview.data.offer.billing_cycle)} (now ${money(sub.current_amount, sub.currency)} ${cycleText(sub.billing_cycle)}).`
            : `The offer has no ${sub.currency} price: the change will be refused.`}
        </Notice>
      )}
    </>
  );
}

/** "per month", "per year"…; "per cycle" for custom periods. */
const cycleText = (cycle: string) =>
  (
    ({
      daily: 'per day',
      biweekly: 'every two weeks',
      monthly: 'per month',
      quarterly: 'per quarter',
      half_yearly: 'per half-year',
      yearly: 'per year',
    }) as Record<string, string>
  )[cycle] ?? 'per cycle';

const cardText = (i: Instrument) => `${label(i.card_brand)} ending ${i.last4} (expires ${i.exp_month}/${i.exp_year})`;

/** The card the subscription bills, as a person knows it (brand, last digits), with its id. */
function PaymentMethod(props: { sub: Subscription }) {
  const { customer_id: customerId, payment_instrument_id: instrumentId } = props.sub;
  const cards = useLoad(
    () =>
      call<Page<Instrument>>('GET', `/merchant/payment-instruments${query({ customer_id: customerId, limit: 100 })}`),
    [customerId, instrumentId],
  );
  const card = cards.state === 'ready' ? cards.data.data.find((i) => i.id === instrumentId) : undefined;
  return (
    <span data-testid="payment-method">
      {card && `${cardText(card)} · `}
      <code>{instrumentId}</code>
    </span>
  );
}

function ChangeInstrumentFields(props: { sub: Subscription; chosen: string; choose: (id: string) => void }) {
  const instruments = useLoad(
    () =>
      call<Page<Instrument>>(
        'GET',
        `/merchant/payment-instruments${query({ customer_id: props.sub.customer_id, status: 'active', limit: 100 })}`,
      ),
    [props.sub.customer_id],
  );
  if (instruments.state === 'loading') return <p role="status">Loading the customer's cards…</p>;
  if (instruments.state === 'error') return <ErrorNote error={instruments.error} retry={instruments.reload} />;
  const others = instruments.data.data.filter((i) => i.id !== props.sub.payment_instrument_id);
  if (others.length === 0)
    return <p class="empty">The customer has no other active card. They add one at a checkout.</p>;
  return (
    <Field label="Card to bill from now on">
      {(a) => (
        <select {...a} required value={props.chosen} onChange={(e) => props.choose(inputValue(e))}>
          <option value="">Choose a card</option>
          {others.map((i) => (
            <option key={i.id} value={i.id}>
              {cardText(i)}
            </option>
          ))}
        </select>
      )}
    </Field>
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

type TestClock = NonNullable<Answer<'getMerchantSubscriptionsIdTestClock'>['test_clock']>;

const DAY_MS = 86_400_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A subscription whose customer is on a test clock: the clock's time, and advancing it by a day, to the
 * next renewal or to a date. After an advance it waits until the clock is ready, then shows the subscription again.
 */
function TestClockPanel(props: { sub: Subscription; advanced: () => void }) {
  const loaded = useLoad(
    () => call<{ test_clock: TestClock | null }>('GET', `/merchant/subscriptions/${props.sub.id}/test-clock`),
    [props.sub.id],
  );
  const [date, setDate] = useState('');
  const [target, setTarget] = useState<string | null>(null);
  const { busy, error, submit } = useSubmit(async () => {
    const current = loaded.state === 'ready' ? loaded.data.test_clock : null;
    if (!target || !current) return;
    let clock = await call<TestClock>('POST', `/merchant/test-clocks/${current.id}/advance`, { frozen_time: target });
    while (clock.status === 'advancing') {
      await sleep(1000);
      clock = (
        await call<{ test_clock: TestClock | null }>('GET', `/merchant/subscriptions/${props.sub.id}/test-clock`)
      ).test_clock!;
    }
    loaded.reload();
    props.advanced();
  });
  if (loaded.state !== 'ready' || !loaded.data.test_clock) return null;
  const clock0 = loaded.data.test_clock;
  const now = Date.parse(clock0.frozen_time);
  const next = props.sub.next_billing_at ? Date.parse(props.sub.next_billing_at) : null;
  const choices: Array<[string, string | null]> = [
    ['By one day', new Date(now + DAY_MS).toISOString()],
    ['To the next renewal', next !== null && next > now ? new Date(next).toISOString() : null],
    ['To the date', date ? new Date(`${date}T${clock0.frozen_time.slice(11)}`).toISOString() : null],
  ];
  return (
    <section aria-labelledby="test-clock" data-testid="test-clock">
      <h2 id="test-clock">Test clock</h2>
      <p>
        This customer runs on the test clock <code>{clock0.id}</code>
        {clock0.name ? ` (${clock0.name})` : ''}: it is <strong>{when(clock0.frozen_time)}</strong>
        {clock0.status === 'advancing' ? ', advancing' : ''}.
      </p>
      <form class="operation-form" onSubmit={submit} aria-label="Advance the test clock">
        <Field label="Date to advance to">
          {(attributes) => (
            <input {...attributes} type="date" value={date} onInput={(event) => setDate(inputValue(event))} />
          )}
        </Field>
        <ErrorNote error={error} />
        <div class="button-row">
          {choices.map(([title, at]) => (
            <button
              type="submit"
              class="secondary"
              disabled={busy || at === null || clock0.status === 'advancing'}
              onClick={() => setTarget(at)}
            >
              {busy && target === at ? 'Advancing…' : `Advance ${title.toLowerCase()}`}
            </button>
          ))}
        </div>
      </form>
    </section>
  );
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
          transitions.reload();
          charges.reload();
        }}
      />
      <section aria-labelledby="charges">
        <h2 id="charges">Charges</h2>
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
