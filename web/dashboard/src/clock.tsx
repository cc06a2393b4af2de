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
 * Test data's clocks, each with its time: a clock's subscriptions renew, enter and leave dunning in the clock's time,
 * so figures of "the last 30 days" leave out what happened at a clock's later time. Nothing without a clock.
 */
export function ClocksNote() {
  const loaded = useLoad(() => call<Page<TestClock>>('GET', '/merchant/test-clocks?limit=100'), []);
  if (loaded.state !== 'ready' || loaded.data.data.length === 0) return null;
  return (
    <Notice>
      <p>
        Subscriptions on a test clock move in the clock’s time: their renewals and dunning are dated by the clock, not
        in these 30 days.
      </p>
      <p class="button-row">
        {loaded.data.data.map((clock) => (
          <ClockBadge key={clock.id} clock={clock} />
        ))}
      </p>
    </Notice>
  );
}
