/**
 * A live charge while a test clock advances, for `npm run bench -- --only "live charge during a test clock"`: the
 * p50 of charges made one at a time through the API with nothing else running, then while an advance renews
 * BENCH_CLOCK_SUBS subscriptions (default 1000) on the test-clock task queue. The goal: the p50 during the advance
 * stays within 20 % of the idle one (clock work runs in its own Worker's few slots, workerSlotsOf in worker/main.ts, at the pace of
 * TEST_CLOCK_ADVANCE_PAGE_SIZE / _PAUSE_MS). Below the figures, where the advance's CPU went (bench/renewal-profile.ts).
 */
import { randomUUID } from 'node:crypto';
import { createTenant } from '../test/helpers/factories';
import { cascade } from '../test/helpers/transactions';
import { createCustomer, saveCard } from '../test/helpers/vault';
import { stack } from '../test/helpers/stack';
import type { Suite } from './harness';
import { renewalProfileReport } from './renewal-profile';
import { measureTestClockAdvance, subscriptionCount } from './test-clocks';
import { benchChargeBody } from './transactions';

const IDLE_CHARGES = 20;
/** A charge every this many ms during the advance: a steady trickle of live traffic, not a load of its own. */
const PACE_MS = 250;
const GOAL = 1.2;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const p50 = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function livePayer(apiUrl: string): Promise<() => Promise<number>> {
  const payer = await createTenant();
  await cascade(payer, ['provider_a']);
  const instrument = await saveCard(payer, await createCustomer(payer));
  return async () => {
    const started = performance.now();
    const response = await fetch(`${apiUrl}/api/v1/transactions`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${payer.merchant_secret_key}`,
        'content-type': 'application/json',
        'idempotency-key': randomUUID(),
      },
      body: JSON.stringify(benchChargeBody(instrument.paymentInstrumentId ?? instrument.id)),
    });
    await response.text();
    if (response.status !== 201) throw new Error(`charge → ${response.status}`);
    return performance.now() - started;
  };
}

export const clockIsolationSuite: Suite = {
  name: 'live charge during a test clock advance',
  async run(ctx) {
    const chargeOnce = await livePayer(ctx.apiUrl);
    const idle: number[] = [];
    for (let i = 0; i < IDLE_CHARGES; i += 1) idle.push(await chargeOnce());
    const during: number[] = [];
    let charging: Promise<void> = Promise.resolve();
    let advancing = false;
    const subscriptions = subscriptionCount(ctx.quick);
    // Charges run from the moment the advance is asked for until the clock is ready again.
    const advance = await measureTestClockAdvance(subscriptions, ctx.log, {
      keepWorkflows: false,
      onClock: () => undefined,
      recording(on) {
        advancing = on;
        if (!on) return;
        charging = (async () => {
          while (advancing) {
            during.push(await chargeOnce());
            await sleep(PACE_MS);
          }
        })();
      },
    });
    await charging;
    const [before, busy] = [p50(idle), p50(during)];
    const ratio = busy / before;
    const { pageSize, pauseMs } = stack().config.testClocks.advance;
    const profile = renewalProfileReport(advance.profile, null);
    const line =
      `Live charge p50, one at a time: idle ${before.toFixed(0)} ms (${idle.length} charges); during a ` +
      `${subscriptions}-subscription test clock advance ${busy.toFixed(0)} ms (${during.length} charges over ` +
      `${advance.seconds.toFixed(0)} s, ${advance.renewed} renewed; pace ${pageSize} a page, ${pauseMs} ms between ` +
      `pages) = ${((ratio - 1) * 100).toFixed(0)} % (goal ≤ +20 %: ${ratio <= GOAL ? 'met' : 'not met'})`;
    return {
      text: [line, ...profile.text],
      markdown: [
        '| Scenario | Charge p50 (ms) | Charges |',
        '| --- | ---: | ---: |',
        `| live charge, one at a time, idle | ${before.toFixed(0)} | ${idle.length} |`,
        `| live charge during a ${subscriptions}-subscription test clock advance | ${busy.toFixed(0)} | ${during.length} |`,
        ...profile.markdown,
      ],
      figures: { 'clock_isolation.idle_p50': before, 'clock_isolation.during_p50': busy },
      problems: advance.renewed === subscriptions ? [] : [`clock isolation: ${advance.renewed} renewed`],
    };
  },
};
