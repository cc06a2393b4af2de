/**
 * The issuer's 3-D Secure challenge page, shared by every provider that runs 3-D Secure and linked from each one's
 * own shape (Stripe's next_action.redirect_to_url, Checkout.com's _links.redirect, Mercado Pago's
 * three_ds_info.external_resource_url): an HTML form with
 * "Complete" and "Fail" that POSTs `outcome=authenticated` or `outcome=failed` to its own URL, then sends the browser
 * (303) to the return URL the provider's request carried (a failure URL after a failed challenge, where the
 * provider takes one) — so a person clicks through it and a script completes it with one form POST and
 * follows the redirects. A payment no longer awaiting its challenge (done, or canceled at its deadline) is not
 * changed: the page only sends the browser back.
 */
import { completeChallenge, type SandboxContext } from './engine';
import type { Reply, SandboxRequest } from './http';

const html = (status: number, body: string): Reply => ({
  status,
  body: `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>3-D Secure</title></head><body>${body}</body></html>`,
  headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' },
});

const escape = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

export function challengeRoutes(ctx: SandboxContext) {
  const find = (request: SandboxRequest) => {
    const payment = ctx.store.payments.get(request.params.id);
    return payment?.threeDs?.flow === 'challenge' ? payment : null;
  };
  return {
    show(request: SandboxRequest): Reply {
      const payment = find(request);
      if (!payment) return html(404, '<p>No such authentication.</p>');
      const open = payment.state === 'requires_action';
      const amount = `${(payment.amount / 100).toFixed(2)} ${escape(payment.currency)}`;
      return html(
        200,
        `<h1>Sandbox bank: confirm this payment</h1><p>${amount}, card ending ${escape(payment.cardLast4 ?? '')}</p>` +
          (open
            ? `<form method="post"><button name="outcome" value="authenticated">Complete</button>` +
              `<button name="outcome" value="failed">Fail</button></form>`
            : '<p>This authentication is over.</p>'),
      );
    },
    submit(request: SandboxRequest): Reply {
      const payment = find(request);
      if (!payment) return html(404, '<p>No such authentication.</p>');
      const outcome = request.body?.outcome;
      if (outcome !== 'authenticated' && outcome !== 'failed')
        return html(400, '<p>outcome must be authenticated or failed.</p>');
      completeChallenge(ctx, payment, outcome);
      const three = payment.threeDs;
      const back = (outcome === 'failed' ? three?.failureUrl : null) ?? three?.returnUrl;
      return back ? { status: 303, headers: { location: back } } : html(200, '<p>Authentication finished.</p>');
    },
  };
}
