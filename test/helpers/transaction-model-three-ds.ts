/**
 * 3-D Secure in the transaction model (test/api/transaction-model.test.ts): a routing node asking for it (`always`,
 * `if_supported`) or not (`never`, where only the issuer's own demand challenges), the challenge cards, the buyer
 * completing or failing the sandbox's challenge page (through Switchyard's return endpoint), and the challenge's
 * deadline passing, and one checkout confirmed from two tabs at once with the challenge card. Each helper drives the
 * real stack as a buyer, the merchant or the clock would.
 */
import { expect } from 'chai';
import { defaultPayloadConverter } from '@temporalio/common';
import { api, type ApiResponse } from './http';
import { createOffer } from './catalog';
import { createSession } from './checkout';
import { mintToken, openSession, publicHeaders } from './vault';
import { rows } from './db';
import { stack } from './stack';
import { giveWebsite, type Tenant } from './factories';
import { transactionAuthenticationWorkflow } from '../../workflows/transaction-authentication';
import { authenticationWorkflowId, type AuthenticationInput } from '../../workflows/transaction.shared';
import { TASK_QUEUES } from '../../workflows/definitions';

export type Require3ds = 'always' | 'if_supported' | 'never';

/** The sandbox's 3-D Secure test cards (sandbox/cards.ts). */
export const THREE_DS_CARDS = {
  challenge: { number: '4000000000003220', cvc: '123', brand: 'visa' },
  frictionless: { number: '4000000000003055', cvc: '123', brand: 'visa' },
  challengeThenDecline: { number: '4000008400001629', cvc: '123', brand: 'visa' },
};

/**
 * The merchant's website (3-D Secure shows it on the challenge) and, on the profile's default connector, an action
 * node with `require_3ds` ahead of it. `never` is also the default connector's own setting: the node changes
 * nothing the charge asks, so an issuer's demand is the only challenge.
 */
export async function requireThreeDs(tenant: Tenant, connectorId: string, mode: Require3ds): Promise<void> {
  await giveWebsite(tenant);
  const base = `/merchants/${tenant.merchant_id}/routing-profiles`;
  const [profile] = (await api.get(base, { key: tenant.merchant_secret_key })).body.data;
  const node = await api.post(`${base}/${profile.id}/nodes`, {
    key: tenant.merchant_secret_key,
    body: { node_type: 'action', merchant_connector_id: connectorId, position: 0, require_3ds: mode },
  });
  expect(node.status, node.text).to.equal(201);
}

/** What a charge waiting for its buyer shows: pending, one open challenge with next_action, announced once. */
export async function expectOneOpenChallenge(tenant: Tenant, transactionId: string): Promise<string> {
  const read = await api.get(`/transactions/${transactionId}`, { key: tenant.merchant_secret_key });
  expect(read.status, read.text).to.equal(200);
  const tx = read.body.data;
  expect(tx.status, 'a challenged charge is pending').to.equal('pending');
  expect(tx.next_action, 'a pending challenge has next_action').to.include({ type: 'redirect_to_url' });
  const open = (tx.timeline as Array<{ three_ds: { status: string } | null }>).filter(
    (attempt) => attempt.three_ds?.status === 'challenged',
  );
  expect(open, 'exactly one open challenge').to.have.length(1);
  const [announced] = await rows(
    `select count(*) as n from events where merchant_id = ? and type = 'transaction.action_required' and data->>'id' = ?`,
    [tenant.merchant_id, transactionId],
  );
  expect(Number(announced.n), 'transaction.action_required once per challenge').to.equal(1);
  return tx.next_action.url as string;
}

/**
 * The buyer submits the challenge page. `returns`: the browser follows the redirects through Switchyard's return
 * endpoint (which wakes the wait); otherwise the buyer closes the window once the sandbox took the verdict.
 */
export async function submitChallenge(
  url: string,
  outcome: 'authenticated' | 'failed',
  returns: boolean,
): Promise<void> {
  const submitted = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: `outcome=${outcome}`,
    redirect: returns ? 'follow' : 'manual',
  });
  expect(submitted.status, `challenge page: ${submitted.status}`).to.equal(returns ? 200 : 303);
}

/** The charge's wait, once it has closed (what it decided). */
export async function waitClosed(transactionId: string): Promise<void> {
  await stack().api.deps.temporal.client.workflow.getHandle(authenticationWorkflowId(transactionId)).result();
}

/**
 * The challenge's deadline passes with the buyer not back: the wait, as it stands at expires_at. Its run is replaced
 * by one whose expires_at is now (the same input otherwise), which takes its last look, cancels the payment at the
 * provider and records what the provider says — without waiting THREE_DS_CHALLENGE_MINUTES of wall time.
 */
export async function challengeDeadlinePasses(transactionId: string): Promise<void> {
  const { client } = stack().api.deps.temporal;
  const workflowId = authenticationWorkflowId(transactionId);
  const handle = client.workflow.getHandle(workflowId);
  const history = await handle.fetchHistory();
  const started = history.events![0].workflowExecutionStartedEventAttributes!;
  const input = defaultPayloadConverter.fromPayload<AuthenticationInput>(started.input!.payloads![0]);
  await handle.terminate('test: the challenge reached its deadline');
  const due = await client.workflow.start(transactionAuthenticationWorkflow, {
    workflowId,
    taskQueue: TASK_QUEUES.payments,
    args: [{ ...input, expiresAt: new Date().toISOString() }],
  });
  await due.result();
}

/**
 * The charge's wait dies (terminated, not restarted) and the challenge's deadline passes meanwhile: the charge is
 * pending an hour later with nothing to finish it, until the pending sweep (the schedule's workflow, run for this
 * merchant) hands it to a new wait, which gives up at once.
 */
export async function challengeWaitDiesPastDeadline(tenant: Tenant, transactionId: string): Promise<void> {
  const { client } = stack().api.deps.temporal;
  await client.workflow.getHandle(authenticationWorkflowId(transactionId)).terminate('test: the wait died');
  await rows(`update transactions set created_at = now() - interval '1 hour' where id = ?`, [transactionId]);
  await rows(
    `update transaction_attempts set three_ds = jsonb_set(three_ds, '{expires_at}', to_jsonb(?::text))
      where transaction_id = ? and three_ds->>'status' = 'challenged'`,
    [new Date(Date.now() - 60_000).toISOString(), transactionId],
  );
  // (The schedule's own run may resume it first: either way a new wait decides.)
  await client.workflow.execute('pendingTransactionSweepWorkflow', {
    workflowId: `transaction-model-pending-sweep-${transactionId}`,
    taskQueue: TASK_QUEUES.payments,
    args: [{ merchantId: tenant.merchant_id }],
  });
  await waitClosed(transactionId);
}

/**
 * One checkout paid from two tabs at once with the challenge card: each tab (its own browser session and typed card)
 * confirms, at the same time. The checkout takes one payment: the confirms' answers, in the tabs' order.
 */
export async function confirmCheckoutTwice(tenant: Tenant): Promise<{ checkoutId: string; answers: ApiResponse[] }> {
  const { offer } = await createOffer(tenant.merchant_id, { billingCycle: 'none' });
  const checkout = await createSession(tenant, { offer_id: offer.id, selected_currency: 'USD' });
  const tabs = [];
  for (let tab = 0; tab < 2; tab++) {
    const session = await openSession(tenant, { checkoutSessionId: checkout.id });
    await mintToken(tenant, session, THREE_DS_CARDS.challenge, { purpose: 'one_time' });
    tabs.push(session);
  }
  const returnUrl = `${stack().url}/checkout/${checkout.id}`;
  const answers = await Promise.all(
    tabs.map((session) =>
      api.post(`/sessions/${session.sessionId}/checkout/confirm`, {
        headers: publicHeaders(tenant.merchant_public_key),
        body: { returnUrl },
      }),
    ),
  );
  return { checkoutId: checkout.id, answers };
}
