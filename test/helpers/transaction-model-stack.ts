/**
 * What the transaction model-based test (test/api/transaction-model.test.ts) reads from the real stack: the
 * transaction as the API shows it, its events, its order's status history, and what the sandbox provider holds
 * for it (the ledger's authorizations and the payment's captured and refunded amounts); and the wait until
 * nothing is in flight for a merchant.
 */
import { api } from './http';
import { rows } from './db';
import { control, ledger, type Slug } from './sandbox';
import type { Tenant } from './factories';

export interface Observed {
  status: string;
  authorized: number;
  captured: number;
  refunded: number;
  events: string[];
  /** The transaction's livemode, and each of its events' (in the same order as `events`). */
  livemode: boolean;
  eventLivemodes: boolean[];
  /** The order's status history as [from, to] pairs, oldest first. */
  history: Array<[string | null, string]>;
  /** The connectors the charge tried, in order (its timeline). */
  attemptConnectors: string[];
  /** Authorizations the provider made for this transaction (replays of one key excluded). */
  approvals: number;
  /** The provider's payment, when it has one. */
  payment: { state: string; amount: number; capturedAmount: number; refundedAmount: number } | null;
}

export async function observe(tenant: Tenant, slug: Slug, account: string, txId: string): Promise<Observed> {
  const read = await api.get(`/transactions/${txId}`, { key: tenant.merchant_secret_key });
  if (read.status !== 200) throw new Error(`GET /transactions/${txId} answered ${read.status}: ${read.text}`);
  const tx = read.body.data;
  const [row] = await rows('select provider_reference, order_id from transactions where id = ?', [txId]);
  const recorded = await rows(
    `select type, livemode from events where merchant_id = ? and (data->>'id' = ? or data->>'transaction_id' = ?)
      order by seq`,
    [tenant.merchant_id, txId, txId],
  );
  const events = recorded.map((e) => e.type as string);
  const history = (
    await rows(`select from_status, to_status from order_status_history where order_id = ? order by seq`, [
      row.order_id,
    ])
  ).map((h) => [h.from_status, h.to_status] as [string | null, string]);
  const found = row.provider_reference ? await control('GET', `/payments/${row.provider_reference}`) : null;
  const payment = found?.status === 200 ? found.body : null;
  // A card held for review is answered pending and approved later by the provider's settle, which the ledger
  // does not list: it counts as an approval once the payment left pending for a state that holds money.
  const settledFromReview = (e: { outcome: string }) =>
    e.outcome === 'pending' && ['authorized', 'captured', 'voided'].includes(payment?.state);
  // A challenged card is logged approved when the challenge opens (the payment awaits its buyer): the issuer
  // approved it only if the buyer passed the challenge and the issuer did not decline after.
  const challenge = payment?.threeDs?.flow === 'challenge' ? payment.threeDs : null;
  const approved = (e: { outcome: string }) =>
    challenge
      ? challenge.result === 'authenticated' && !challenge.declineAfter
      : e.outcome === 'approved' || e.outcome === 'authorized' || settledFromReview(e);
  const approvals = (await ledger({ provider: slug, account, reference: txId, operation: 'authorize' })).filter(
    (e) => !e.replayed && approved(e),
  ).length;
  return {
    status: tx.status,
    authorized: tx.amount_authorized,
    captured: tx.amount_captured,
    refunded: tx.amount_refunded,
    events,
    livemode: tx.livemode,
    eventLivemodes: recorded.map((e) => e.livemode as boolean),
    history,
    attemptConnectors: (tx.timeline as Array<{ connector_id: string }>).map((attempt) => attempt.connector_id),
    approvals,
    payment,
  };
}

export async function providerReference(txId: string): Promise<string> {
  const [row] = await rows('select provider_reference from transactions where id = ?', [txId]);
  return row.provider_reference;
}

/**
 * Waits until nothing is in flight for the merchant: no charge still pending, no capture or void owning its
 * transaction, no refund pending, and every webhook the provider sent for the account answered (2xx or 4xx: a
 * 5xx or no answer yet is retried by the sandbox). Throws with what is still in flight after 30 s.
 */
export async function quiesce(tenant: Tenant, slug: Slug, account: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const [busy] = await rows(
      `select (select count(*) from refunds where merchant_id = ? and status = 'pending') as refunds,
              (select count(*) from transactions where merchant_id = ?
                 and (status in ('pending', 'capture_pending') or pending_operation_id is not null)) as transactions`,
      [tenant.merchant_id, tenant.merchant_id],
    );
    const events = (await control('GET', `/events?${new URLSearchParams({ provider: slug, account }).toString()}`)).body
      .data as Array<{ type: string; endpoints: number; deliveries: Array<{ status: number | null }> }>;
    // An event emitted while no endpoint was registered is never delivered: nothing is in flight.
    const unanswered = events.filter(
      (e) => e.endpoints > 0 && !e.deliveries.some((d) => d.status !== null && d.status < 500),
    );
    if (Number(busy.refunds) === 0 && Number(busy.transactions) === 0 && unanswered.length === 0) return;
    if (Date.now() > deadline)
      throw new Error(
        `still in flight after 30 s: ${JSON.stringify({ ...busy, webhooks: unanswered.map((e) => e.type) })}`,
      );
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
