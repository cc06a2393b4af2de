/** A test-mode subscription's test clock: where it stands, advancing it, and making the next renewal fail. */
import { useState } from 'preact/hooks';
import { call, type Answer } from '../../api';
import { when } from '../../format';
import { ErrorNote, Field, inputValue, Notice, useLoad, useSubmit } from '../../ui';
import type { Subscription } from './model';

type TestClock = NonNullable<Answer<'getMerchantSubscriptionsIdTestClock'>['test_clock']>;
type RenewalFailure = Answer<'postMerchantTestClocksTestClockIdSubscriptionsSubscriptionIdFailNextRenewal'>;
type FailureCode = RenewalFailure['failure_code'];

/** The failure_codes the API accepts (the first is its default). */
const FAILURE_CODES: FailureCode[] = [
  'insufficient_funds',
  'do_not_honor',
  'expired_card',
  'lost_or_stolen',
  'fraudulent',
  'invalid_number',
];

const DAY_MS = 86_400_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A subscription whose customer is on a test clock: the clock's time, and advancing it by a day, to the
 * next renewal or to a date. After an advance it waits until the clock is ready, then shows the subscription again.
 * It can also make the next renewal decline once, with a chosen failure_code (the rules are the API's).
 */
export function TestClockPanel(props: { sub: Subscription; advanced: () => void }) {
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
      <FailNextRenewal clockId={clock0.id} subscriptionId={props.sub.id} />
    </section>
  );
}

function FailNextRenewal(props: { clockId: string; subscriptionId: string }) {
  const [code, setCode] = useState<FailureCode>(FAILURE_CODES[0]);
  const [armed, setArmed] = useState<RenewalFailure | null>(null);
  const { busy, error, submit } = useSubmit(async () => {
    setArmed(
      await call<RenewalFailure>(
        'POST',
        `/merchant/test-clocks/${props.clockId}/subscriptions/${props.subscriptionId}/fail-next-renewal`,
        { failure_code: code },
      ),
    );
  });
  return (
    <form class="operation-form" onSubmit={submit} aria-label="Fail the next renewal">
      <Field label="Failure code">
        {(attributes) => (
          <select {...attributes} value={code} onChange={(event) => setCode(inputValue(event) as FailureCode)}>
            {FAILURE_CODES.map((option) => (
              <option value={option}>{option}</option>
            ))}
          </select>
        )}
      </Field>
      <ErrorNote error={error} />
      {armed && <Notice>The next renewal will decline with {armed.failure_code}, once.</Notice>}
      <div class="button-row">
        <button type="submit" class="secondary" disabled={busy}>
          Fail the next renewal
        </button>
      </div>
    </form>
  );
}
