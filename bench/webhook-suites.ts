/** The webhook suites of `npm run bench`: delivery throughput in a burst, latency when idle, and isolation. */
import { stack } from '../test/helpers/stack';
import type { Suite } from './harness';
import { measureWebhookDeliveries, webhookReport } from './webhooks';
import { isolationReport, measureChargesDuringHangingWebhooks } from './webhook-isolation';

export const webhooksSuite: Suite = {
  name: 'webhook deliveries',
  async run(ctx) {
    // A burst, then one event at a time (commit → receipt when nothing queues): bench/webhooks.ts. Its endpoints are
    // plain-http loopback ones, which a production API refuses (the SSRF guard): configured on the stack's test-mode API.
    const result = await measureWebhookDeliveries(stack().url, ctx.log);
    const report = webhookReport(result);
    return {
      figures: {
        'webhooks.per_s': result.deliveriesPerSecond,
        'webhooks.p50': result.p50,
        'webhooks.p99': result.p99,
        'webhooks_idle.p50': result.idle.p50,
      },
      text: report.text,
      markdown: report.markdown,
    };
  },
};

/** Last in SUITES: its deliveries keep retrying against the closed endpoint until the stack stops. */
export const isolationSuite: Suite = {
  name: 'charges while webhook endpoints hang',
  async run(ctx) {
    const report = isolationReport(await measureChargesDuringHangingWebhooks(ctx.apiUrl, stack().url, ctx.log));
    return { text: report.text, markdown: report.markdown };
  },
};
