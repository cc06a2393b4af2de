/** The webhook suites of `npm run bench`: delivery throughput in a burst, latency when idle, and isolation. */
import type { Suite } from './harness';
import { measureWebhookDeliveries, webhookReport } from './webhooks';
import { isolationReport, measureChargesDuringHangingWebhooks } from './webhook-isolation';

/** Events recorded one at a time, each waiting for its delivery: commit → receipt when nothing queues. */
const IDLE_EVENTS = 10;

export const webhooksSuite: Suite = {
  name: 'webhook deliveries',
  async run(ctx) {
    const burst = await measureWebhookDeliveries(ctx.apiUrl, ctx.log);
    const idle = await measureWebhookDeliveries(ctx.apiUrl, ctx.log, {
      events: IDLE_EVENTS,
      endpoints: 1,
      producers: 1,
      oneAtATime: true,
    });
    const report = webhookReport(burst);
    const idleLine = `Idle (${IDLE_EVENTS} events one at a time, 1 endpoint): commit → receipt p50 ${idle.p50} ms, p99 ${idle.p99} ms`;
    return {
      figures: {
        'webhooks.per_s': burst.deliveriesPerSecond,
        'webhooks.p50': burst.p50,
        'webhooks.p99': burst.p99,
        'webhooks_idle.p50': idle.p50,
      },
      text: [...report.text, idleLine],
      markdown: [...report.markdown, '', idleLine],
    };
  },
};

/** Last in SUITES: its deliveries keep retrying against the closed endpoint until the stack stops. */
export const isolationSuite: Suite = {
  name: 'charges while webhook endpoints hang',
  async run(ctx) {
    const report = isolationReport(await measureChargesDuringHangingWebhooks(ctx.apiUrl, ctx.log));
    return { text: report.text, markdown: report.markdown };
  },
};
