/**
 * Test-clock time is one time: an object on a test clock (a customer, their subscriptions) has its dates in the
 * clock's time, so the page says so with a badge naming the clock and its frozen time ("Test clock: Billing QA, Jan 31,
 * 2027, 10:00 AM"). Real-time objects get no badge.
 */
import { call, type Answer, type Page } from './api';
import { when } from './format';
import { Notice, useLoad } from './ui';

export type TestClock = Answer<'getMerchantTestClocksTestClockId'>;

/** The test clock `id` names (null: real time, nothing to load). */
export function useTestClock(id: string | null | undefined): TestClock | null {
  const loaded = useLoad(
    () => (id ? call<TestClock>('GET', `/merchant/test-clocks/${id}`) : Promise.resolve(null)),
    [id],
  );
  return loaded.state === 'ready' ? loaded.data : null;
}

/** The test clock of a customer (null: real time, or no customer). */
function useCustomerClock(customerId: string | null): TestClock | null {
  const customer = useLoad(
    () =>
      customerId
        ? call<Answer<'getMerchantCustomersCustomerId'>>('GET', `/merchant/customers/${customerId}`)
        : Promise.resolve(null),
    [customerId],
  );
  return useTestClock(customer.state === 'ready' ? customer.data?.test_clock_id : null);
}

/** The badge of a clock (any answer that names the clock and its frozen time); nothing in real time. */
export function ClockBadge(props: { clock: { id: string; name: string | null; frozen_time: string } | null }) {
  if (!props.clock) return null;
  return (
    <span class="chip info" data-testid="clock-badge" title={`Test clock ${props.clock.id}`}>
      Test clock: {props.clock.name ?? props.clock.id}, {when(props.clock.frozen_time)}
    </span>
  );
}

/**
 * A payment or order of a customer on a test clock: the clock's badge, and a word that its dates are when it ran (real
 * time), while the customer's subscriptions move in the clock's time. Nothing for a real-time or guest customer.
 */
export function CustomerClock(props: { customerId: string | null; what: 'payment' | 'order' }) {
  const clock = useCustomerClock(props.customerId);
  if (!clock) return null;
  return (
    <p>
      <ClockBadge clock={clock} />{' '}
      <span class="hint">
        Dates in real time: this {props.what} is dated when it ran; the customer’s subscriptions move in the clock’s
        time.
      </span>
    </p>
  );
}

/**
 * Test data's clocks, each with its time: a clock's subscriptions renew, enter and leave dunning in the clock's time,
 * so figures of "the last 30 days" leave out what happened at a clock's later time. Nothing without a clock.
 */
export function ClocksNote() {
  const loaded = useLoad(() => call<Page<TestClock>>('GET', '/merchant/test-clocks?limit=100'), []);
  if (loaded.state !== 'ready' || loaded.data.data.length === 0) return null;
  return (
    <Notice>
      <p>
        Subscriptions on a test clock move in the clock’s time: their figures are the 30 days up to the clock’s time,
        shown as these 30 (the clock’s day as today).
      </p>
      <p class="button-row">
        {loaded.data.data.map((clock) => (
          <ClockBadge key={clock.id} clock={clock} />
        ))}
      </p>
    </Notice>
  );
}
