/**
 * Test-clock time is one time: an object on a test clock (a customer, their subscriptions) has its dates in the
 * clock's time, so the page says so with a badge naming the clock's frozen time. Real-time objects get no badge.
 */
import { call, type Answer } from './api';
import { when } from './format';
import { useLoad } from './ui';

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
export function ClockBadge(props: { clock: { id: string; frozen_time: string } | null }) {
  if (!props.clock) return null;
  return (
    <span class="chip info" data-testid="clock-badge" title={`Test clock ${props.clock.id}`}>
      Test clock · {when(props.clock.frozen_time)}
    </span>
  );
}
