/**
 * The features the transaction model draws together with its operations (test/api/transaction-model.test.ts):
 * a live plan beside the sequence's test-mode connector, an opt-in circuit breaker, a review hold settled late, a
 * checkout paid twice at once with a saved card, the reconciler, and test payment methods saved and charged. Each helper drives the real stack the way an
 * integrator or operator would (API, sandbox control API, Temporal client) and returns what the model needs.
 */
import { expect } from 'chai';
import { api } from './http';
import { rows } from './db';
import { stack } from './stack';
import { accountOf, control, type Slug } from './sandbox';
import { connectorBody, connectorsPath } from './connectors';
import { createOffer } from './catalog';
import { createSession } from './checkout';
import { charge, type CascadeConnector } from './transactions';
import { CARDS, createCustomer, saveCard } from './vault';
import type { Tenant } from './factories';
import { reconcileUnknownOutcomesWorkflow } from '../../workflows/reconcile-unknown-outcomes';
import { TASK_QUEUES } from '../../workflows/definitions';

/** The payment method the live plan routes: a debit card charge goes live, everything else to the test connector. */
export const LIVE_METHOD = 'debit_card';

/**
 * A live provider_a connector (its host does not resolve here: every call ends network_error before anything is
 * sent) in front of the sequence's test-mode connector, in the merchant's debit-card profile. The charge's mode
 * is live, so routing must skip the test connector rather than cascade onto it.
 */
export async function addLivePlan(tenant: Tenant, testConnectorId: string): Promise<string> {
  const key = tenant.merchant_secret_key;
  const live = await api.post(connectorsPath(tenant.merchant_id), {
    key,
    body: connectorBody('provider_a', { name: 'Live provider_a', is_test_mode: false }),
  });
  expect(live.status, live.text).to.equal(201);
  const base = `/merchants/${tenant.merchant_id}/routing-profiles`;
  const profile = await api.post(base, {
    key,
    body: { name: 'Debit, live first', payment_method: LIVE_METHOD, default_merchant_connector_id: testConnectorId },
  });
  expect(profile.status, profile.text).to.equal(201);
  const node = await api.post(`${base}/${profile.body.id}/nodes`, {
    key,
    body: { node_type: 'action', merchant_connector_id: live.body.id, position: 0 },
  });
  expect(node.status, node.text).to.equal(201);
  const activated = await api.patch(`${base}/${profile.body.id}`, { key, body: { is_active: true } });
  expect(activated.status, activated.text).to.equal(200);
  return live.body.id;
}

/** One failure opens the connector's circuit, which stays open until the merchant closes it. */
export async function enableCircuitBreaker(tenant: Tenant, connectorId: string): Promise<void> {
  const res = await api.patch(`${connectorsPath(tenant.merchant_id)}/${connectorId}`, {
    key: tenant.merchant_secret_key,
    body: { config: { circuit_breaker: { failure_threshold: 1, cooldown_seconds: 3600 } } },
  });
  expect(res.status, res.text).to.equal(200);
}

export async function circuitOf(tenant: Tenant, connectorId: string): Promise<string> {
  const res = await api.get(`${connectorsPath(tenant.merchant_id)}/${connectorId}`, {
    key: tenant.merchant_secret_key,
  });
  expect(res.status, res.text).to.equal(200);
  return res.body.health.state;
}

export async function closeCircuit(tenant: Tenant, connectorId: string): Promise<void> {
  const res = await api.post(`${connectorsPath(tenant.merchant_id)}/${connectorId}/circuit`, {
    key: tenant.merchant_secret_key,
    body: { state: 'closed' },
  });
  expect(res.status, res.text).to.equal(200);
}

/** The provider settles a payment it held (review, pix, boleto): it sends payment.succeeded. */
export async function settleAtProvider(providerReference: string): Promise<void> {
  const res = await control('POST', `/payments/${providerReference}/settle`, {});
  expect(res.status, `sandbox settle: ${JSON.stringify(res.body)}`).to.equal(202);
}

/** One run of the reconciler over every unresolved attempt (the schedule's workflow, started by hand). */
export async function runReconciler(tag: string): Promise<void> {
  await stack().api.deps.temporal.client.workflow.execute(reconcileUnknownOutcomesWorkflow, {
    workflowId: `transaction-model-reconcile-${tag}-${Date.now()}`,
    taskQueue: TASK_QUEUES.payments,
    args: [],
  });
}

/** A one-off checkout whose customer pays with a card saved earlier (USD). */
export async function savedCardCheckout(tenant: Tenant): Promise<{ sessionId: string; instrumentId: string }> {
  const customerId = await createCustomer(tenant);
  const instrumentId = (await saveCard(tenant, customerId, CARDS.visa)).id;
  const { offer } = await createOffer(tenant.merchant_id, { billingCycle: 'none' });
  const session = await createSession(tenant, {
    offer_id: offer.id,
    customer_id: customerId,
    selected_currency: 'USD',
  });
  return { sessionId: session.id, instrumentId };
}

/** Two payments of one checkout sent at once, each under its own Idempotency-Key: their statuses (< 500 both). */
export async function payCheckoutTwice(
  tenant: Tenant,
  checkout: { sessionId: string; instrumentId: string },
): Promise<number[]> {
  const body = {
    payment_method: 'credit_card',
    charge_type: 'payment',
    country: 'US',
    checkout_session_id: checkout.sessionId,
    payment_instrument_id: checkout.instrumentId,
  };
  const answers = await Promise.all([charge(tenant, body), charge(tenant, body)]);
  for (const res of answers) expect(res.status, `a checkout payment: ${res.text}`).to.be.lessThan(500);
  return answers.map((res) => res.status);
}

/** The checkout's transactions with their status and amount, oldest first. */
export async function transactionsOfCheckout(
  sessionId: string,
): Promise<Array<{ id: string; status: string; amount: number }>> {
  return (
    await rows('select id, status, amount from transactions where checkout_session_id = ? order by created_at, id', [
      sessionId,
    ])
  ).map((row) => ({ id: row.id, status: row.status, amount: Number(row.amount) }));
}

/** The checkout's orders that took money (paid, or authorized awaiting capture). */
export async function paidOrdersOfCheckout(sessionId: string): Promise<number> {
  const [row] = await rows(
    `select count(*) as paid from orders o
      where o.id in (select order_id from transactions where checkout_session_id = ?)
        and o.status not in ('pending', 'failed', 'canceled', 'expired')`,
    [sessionId],
  );
  return Number(row.paid);
}

/**
 * A charge whose answer was lost, left by its resolution's horizon (failed, the attempt unresolved), given back by
 * the reconciler to the provider's final word: its runs refund the charge, a give-back the provider answered pending
 * is decided by the sandbox (as its timer would), and the next run settles the attempt as reversed.
 */
export async function giveBackByReconciler(transactionId: string, tag: string): Promise<void> {
  for (let run = 0; run < 3; run++) {
    await runReconciler(`${tag}-give-back-${run}`);
    const [attempt] = await rows(
      `select error_code, give_back_status, give_back_reference from transaction_attempts
        where transaction_id = ? order by attempt_number desc limit 1`,
      [transactionId],
    );
    if (attempt.error_code === 'reconciled_charge_reversed') return;
    if (attempt.give_back_status === 'pending' && attempt.give_back_reference) {
      const res = await control('POST', `/refunds/${attempt.give_back_reference}/succeed`, {});
      expect(res.status, `sandbox refund succeed: ${JSON.stringify(res.body)}`).to.be.lessThan(500);
    }
  }
  const [attempt] = await rows(
    `select error_code, give_back_status from transaction_attempts where transaction_id = ?
      order by attempt_number desc limit 1`,
    [transactionId],
  );
  expect(attempt, 'the reconciler gave the lost charge back').to.deep.include({
    error_code: 'reconciled_charge_reversed',
  });
}

/**
 * Runs `work` while the sandbox has no webhook endpoint for the connector's account (what it emits meanwhile is lost,
 * not queued), then registers the connector's endpoint again.
 */
export async function withoutProviderWebhooks<T>(connector: CascadeConnector, work: () => Promise<T>): Promise<T> {
  const account = await accountOf(connector.slug as Slug, connector.credentials);
  const query = new URLSearchParams({ provider: connector.slug, account }).toString();
  for (const endpoint of (await control('GET', `/webhook-endpoints?${query}`)).body.data)
    expect((await control('DELETE', `/webhook-endpoints/${endpoint.id}`)).status).to.equal(204);
  try {
    return await work();
  } finally {
    const registered = await control('POST', '/webhook-endpoints', {
      provider: connector.slug,
      credentials: connector.credentials,
      url: connector.webhookUrl,
      secret: connector.webhookSecret,
    });
    expect(registered.status, JSON.stringify(registered.body)).to.equal(201);
  }
}

/**
 * The test payment methods the model saves and charges beside typed cards (domain/payment-instruments/
 * payment-instruments.sandbox-cards.ts), each with the failure_code every charge of it ends with (null: approved,
 * or the card's 3-D Secure challenge decides).
 */
export const TEST_METHODS = {
  pm_card_visa: null,
  pm_card_mastercard: null,
  pm_card_chargeDeclined: 'do_not_honor',
  pm_card_chargeDeclinedInsufficientFunds: 'insufficient_funds',
  pm_card_threeDSecureRequired: null,
} as const;
export type TestMethod = keyof typeof TEST_METHODS;

/**
 * A customer saves the test payment method: the charge's card source (customer_id and payment_instrument_id). A
 * merchant with a live connector is refused (400 TEST_PAYMENT_METHOD_LIVE_MODE) and nothing is saved: null.
 */
export async function savedTestMethod(
  tenant: Tenant,
  method: TestMethod,
  liveConnector: boolean,
): Promise<{ customer_id: string; payment_instrument_id: string } | null> {
  const customerId = await createCustomer(tenant);
  const path = `/merchants/${tenant.merchant_id}/payment-instruments`;
  const key = tenant.merchant_secret_key;
  const saved = await api.post(path, { key, body: { customer_id: customerId, payment_method: method } });
  if (!liveConnector) {
    expect(saved.status, `saving ${method}: ${saved.text}`).to.equal(200);
    return { customer_id: customerId, payment_instrument_id: saved.body.id };
  }
  expect(
    [saved.status, saved.body?.error?.code],
    `saving ${method} with a live connector: ${saved.text}`,
  ).to.deep.equal([400, 'TEST_PAYMENT_METHOD_LIVE_MODE']);
  const listed = await api.get(`${path}?customer_id=${customerId}`, { key });
  expect(listed.body.data, 'a refused test payment method saves nothing').to.deep.equal([]);
  return null;
}
