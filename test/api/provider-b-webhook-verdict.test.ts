/**
 * provider_b (Adyen) has no read: an auto-captured charge whose answer was lost stays unknown after its lookup (the
 * technical cancel cannot undo a capture), so the transaction answers `pending` with its attempt
 * provider_outcome_unknown while the charge's own resolution waits. Adyen's AUTHORISATION notification is the only
 * record of what it did: its verdict is kept on the attempt and wakes the resolution, which takes it as the answer —
 * authorized (the buyer keeps what they paid for) or failed with nothing taken — without asking the provider again.
 * Once the resolution's horizon has passed (the transaction failed), a verdict is the reconciler's: it gives the
 * money back (refund by pspReference; the attempt is settled once the refund's REFUND notification says it succeeded)
 * or settles the attempt as not charged, while the transaction stays `failed`.
 */
import { expect } from 'chai';
import { createTenant, type Tenant } from '../helpers/factories';
import { api } from '../helpers/http';
import { rows } from '../helpers/db';
import { control, ledger } from '../helpers/sandbox';
import { stack } from '../helpers/stack';
import { pastResolutionHorizon, resolutionOf, resolutionWakes } from '../helpers/charge-resolution';
import { CARDS, type CardInput } from '../helpers/vault';
import { connectorsPath } from '../helpers/connectors';
import { cardCharge, cardToken, cascade, charge, override, type CascadeConnector } from '../helpers/transactions';
import { notificationHmac } from '../../sandbox/providers/provider-b-notifications';
import { TASK_QUEUES } from '../../workflows/definitions';
import { reconcileUnknownOutcomesWorkflow } from '../../workflows/reconcile-unknown-outcomes';

const AMOUNT = 1500;
const SERVER_ERROR_CARD = { number: '4000000000000119', cvc: '123', brand: 'visa' };

async function runReconciler(tag: string): Promise<Record<string, number>> {
  return stack().api.deps.temporal.client.workflow.execute(reconcileUnknownOutcomesWorkflow, {
    workflowId: `test-reconcile-verdict-${tag}-${Date.now()}`,
    taskQueue: TASK_QUEUES.payments,
  });
}

/** The sandbox's webhook endpoints for this connector's account, removed: the test delivers the notifications. */
async function stopSandboxDeliveries(connector: CascadeConnector): Promise<void> {
  const account = (
    await control('POST', '/accounts/resolve', { provider: 'provider_b', credentials: connector.credentials })
  ).body.account;
  const listed = await control(
    'GET',
    `/webhook-endpoints?${new URLSearchParams({ provider: 'provider_b', account }).toString()}`,
  );
  for (const endpoint of listed.body.data)
    expect((await control('DELETE', `/webhook-endpoints/${endpoint.id}`)).status).to.equal(204);
}

/** A provider_b connector whose webhook secret carries an HMAC key (as Adyen's do), with no sandbox deliveries. */
async function adyenConnector(tenant: Tenant): Promise<CascadeConnector & { secret: Record<string, string> }> {
  const [connector] = await cascade(tenant, ['provider_b'], { webhooks: false });
  const secret = {
    ...JSON.parse(connector.webhookSecret),
    hmac_key: 'A1B2C3D4E5F60718293A4B5C6D7E8F90A1B2C3D4E5F60718293A4B5C6D7E8F90',
  };
  const patched = await api.patch(`${connectorsPath(tenant.merchant_id)}/${connector.id}`, {
    key: tenant.merchant_secret_key,
    body: { webhook_secret: JSON.stringify(secret) },
  });
  expect(patched.status, patched.text).to.equal(200);
  // Changing the secret registered the endpoint at the sandbox again.
  await stopSandboxDeliveries(connector);
  return { ...connector, secret };
}

/** Adyen's AUTHORISATION notification, authenticated as Adyen sends it: HTTP Basic and the item's HMAC. */
function authorisation(
  connector: CascadeConnector & { secret: Record<string, string> },
  fields: { pspReference: string; merchantReference: string; success: boolean },
): string {
  const item: Record<string, unknown> = {
    amount: { value: AMOUNT, currency: 'BRL' },
    eventCode: 'AUTHORISATION',
    eventDate: new Date().toISOString(),
    merchantAccountCode: connector.credentials.merchant_account,
    merchantReference: fields.merchantReference,
    pspReference: fields.pspReference,
    paymentMethod: 'visa',
    reason: fields.success ? '' : 'Refused',
    success: String(fields.success),
  };
  item.additionalData = { hmacSignature: notificationHmac(item, connector.secret.hmac_key) };
  return JSON.stringify({ live: 'false', notificationItems: [{ NotificationRequestItem: item }] });
}

/** Adyen's REFUND notification of a refund (its own pspReference) of the payment `originalReference`. */
function refundNotification(
  connector: CascadeConnector & { secret: Record<string, string> },
  fields: { pspReference: string; originalReference: string; merchantReference: string; success: boolean },
): string {
  const item: Record<string, unknown> = {
    amount: { value: AMOUNT, currency: 'BRL' },
    eventCode: 'REFUND',
    eventDate: new Date().toISOString(),
    merchantAccountCode: connector.credentials.merchant_account,
    merchantReference: fields.merchantReference,
    originalReference: fields.originalReference,
    pspReference: fields.pspReference,
    reason: '',
    success: String(fields.success),
  };
  item.additionalData = { hmacSignature: notificationHmac(item, connector.secret.hmac_key) };
  return JSON.stringify({ live: 'false', notificationItems: [{ NotificationRequestItem: item }] });
}

async function deliver(connector: CascadeConnector & { secret: Record<string, string> }, body: string) {
  const basic = Buffer.from(`${connector.secret.username}:${connector.secret.password}`).toString('base64');
  const response = await fetch(connector.webhookUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Basic ${basic}` },
    body,
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** A charge on this card, answered 201 (pending when its attempt's outcome stayed unknown). */
async function chargeCard(tenant: Tenant, card: CardInput & { brand?: string } = CARDS.visa) {
  const res = await charge(tenant, cardCharge(await cardToken(tenant, card), { currency: 'BRL', country: 'BR' }));
  expect(res.status, res.text).to.equal(201);
  return res.body.data;
}

/** A charge whose attempt's outcome stayed unknown: pending, its resolution running. */
async function unknownCharge(tenant: Tenant, connector: CascadeConnector, card?: CardInput & { brand?: string }) {
  const tx = await chargeCard(tenant, card);
  expect(tx.status).to.equal('pending');
  expect(tx.timeline.map((a: any) => [a.connector_id, a.error_code])).to.deep.equal([
    [connector.id, 'provider_outcome_unknown'],
  ]);
  expect((await resolutionOf(tx.id).describe()).status.name).to.equal('RUNNING');
  return tx;
}

const read = async (tenant: Tenant, transactionId: string) =>
  (await api.get(`/transactions/${transactionId}`, { key: tenant.merchant_secret_key })).body.data;

/** Everything the sandbox recorded for this connector's account (calls, lookups, cancels, refunds). */
async function accountLedger(connector: CascadeConnector) {
  const account = (
    await control('POST', '/accounts/resolve', { provider: 'provider_b', credentials: connector.credentials })
  ).body.account;
  return ledger({ provider: 'provider_b', account });
}

async function attemptOf(transactionId: string) {
  const [attempt] = await rows(
    `select error_code, outcome, provider_reference, webhook_verdict, webhook_verdict_reference
       from transaction_attempts where transaction_id = ? order by attempt_number`,
    [transactionId],
  );
  return attempt;
}

const eventTypes = async (tenant: Tenant, transactionId: string): Promise<string[]> =>
  (
    await rows(`select type from events where merchant_id = ? and data->>'id' = ? order by seq`, [
      tenant.merchant_id,
      transactionId,
    ])
  ).map((row) => row.type);

/** The pspReference of the charge the sandbox made (and answered 5xx for) under this transaction. */
async function chargedAtSandbox(transactionId: string): Promise<string> {
  const [charged] = (await ledger({ reference: transactionId, operation: 'authorize' })).filter(
    (entry) => !entry.replayed && entry.outcome === 'approved',
  );
  expect(charged, 'the sandbox charged').to.exist;
  return charged.provider_reference!;
}

const refundsOf = async (transactionId: string) =>
  (await ledger({ reference: transactionId, operation: 'refund' })).filter((entry) => !entry.replayed);

describe('provider_b (Adyen): the AUTHORISATION notification decides an attempt whose answer was lost', () => {
  it('a charge the provider took is resolved by its notification: the resolution wakes at once, authorized with the provider’s payment, nothing given back, asked nothing more; a duplicate changes nothing', async function () {
    this.timeout(60_000);
    const tenant = await createTenant();
    const connector = await adyenConnector(tenant);
    await override(connector, 'approved_server_error', 1);
    const tx = await unknownCharge(tenant, connector);
    const psp = await chargedAtSandbox(tx.id);
    const asked = (await accountLedger(connector)).length;

    const body = authorisation(connector, { pspReference: psp, merchantReference: tx.id, success: true });
    const first = await deliver(connector, body);
    expect(first).to.deep.equal({ status: 200, body: { received: true, duplicate: false } });
    expect(await resolutionOf(tx.id).result()).to.deep.equal({ transactionId: tx.id, status: 'authorized' });
    // Woken by the notification, not by its 30-second timer.
    expect(await resolutionWakes(tx.id)).to.deep.equal(['woken']);

    const after = await read(tenant, tx.id);
    expect(after).to.include({ status: 'authorized', amount_authorized: AMOUNT, amount_captured: AMOUNT });
    expect(await attemptOf(tx.id)).to.include({ error_code: null, outcome: 'approved', provider_reference: psp });
    // One charge, kept: no second call, no lookup, no refund.
    expect(await accountLedger(connector)).to.have.length(asked);
    expect(await refundsOf(tx.id)).to.deep.equal([]);
    const events = await eventTypes(tenant, tx.id);
    expect(events).to.deep.equal(['transaction.created', 'transaction.pending', 'transaction.authorized']);

    // The same notification again (Adyen retries until it gets [accepted]): recorded once, nothing changes.
    const again = await deliver(connector, body);
    expect(again).to.deep.equal({ status: 200, body: { received: true, duplicate: true } });
    await runReconciler(tx.id);
    expect(await refundsOf(tx.id)).to.deep.equal([]);
    expect(await read(tenant, tx.id)).to.include({ status: 'authorized', amount_captured: AMOUNT });
    expect(await eventTypes(tenant, tx.id)).to.deep.equal(events);
    const received = await rows(
      `select event_type, transaction_id from provider_webhook_events where connector_id = ? and provider_event_id = ?`,
      [connector.id, `${psp}:AUTHORISATION:true`],
    );
    expect(received).to.deep.equal([{ event_type: 'payment.succeeded', transaction_id: tx.id }]);
  });

  it('a declined notification ends the pending charge failed with nothing taken, without asking the provider anything', async function () {
    this.timeout(60_000);
    const tenant = await createTenant();
    const connector = await adyenConnector(tenant);
    // Answered 5xx, nothing processed: the technical cancel is `received`, which cannot tell for a captured charge.
    const tx = await unknownCharge(tenant, connector, SERVER_ERROR_CARD);
    const before = (await accountLedger(connector)).length;

    const delivered = await deliver(
      connector,
      authorisation(connector, { pspReference: 'DECLINED0000TEST', merchantReference: tx.id, success: false }),
    );
    expect(delivered).to.deep.equal({ status: 200, body: { received: true, duplicate: false } });
    expect(await resolutionOf(tx.id).result()).to.deep.equal({ transactionId: tx.id, status: 'failed' });
    expect(await resolutionWakes(tx.id)).to.deep.equal(['woken']);
    expect(await attemptOf(tx.id)).to.include({
      error_code: 'provider_declined',
      provider_reference: 'DECLINED0000TEST',
    });
    expect(await accountLedger(connector)).to.have.length(before);
    expect(await read(tenant, tx.id)).to.include({ status: 'failed', amount_captured: 0 });
    expect(await eventTypes(tenant, tx.id)).to.deep.equal([
      'transaction.created',
      'transaction.pending',
      'transaction.failed',
    ]);
  });

  it('the notification the sandbox sends itself for the lost charge is the resolution’s answer: authorized, nothing given back', async function () {
    this.timeout(60_000);
    const tenant = await createTenant();
    // The sandbox delivers this connector's notifications, as Adyen would (during the charge, or once it is pending).
    const [connector] = await cascade(tenant, ['provider_b']);
    await override(connector, 'approved_server_error', 1);
    const tx = await unknownCharge(tenant, connector);
    const psp = await chargedAtSandbox(tx.id);
    expect(await resolutionOf(tx.id).result()).to.deep.equal({ transactionId: tx.id, status: 'authorized' });
    expect(await attemptOf(tx.id)).to.include({
      error_code: null,
      provider_reference: psp,
      webhook_verdict: 'approved',
    });
    expect(await refundsOf(tx.id)).to.deep.equal([]);
    expect(await eventTypes(tenant, tx.id)).to.include('transaction.authorized');
  });

  it('past the resolution’s horizon, a charge found by its notification is refunded by the reconciler; the transaction stays failed, a duplicate changes nothing', async function () {
    this.timeout(60_000);
    const tenant = await createTenant();
    const connector = await adyenConnector(tenant);
    await override(connector, 'approved_server_error', 1);
    const tx = await unknownCharge(tenant, connector);
    const psp = await chargedAtSandbox(tx.id);
    await pastResolutionHorizon(tx.id);
    const events = await eventTypes(tenant, tx.id);

    const body = authorisation(connector, { pspReference: psp, merchantReference: tx.id, success: true });
    const first = await deliver(connector, body);
    expect(first).to.deep.equal({ status: 200, body: { received: true, duplicate: false } });
    // Kept for the reconciler; nothing moves yet.
    expect(await attemptOf(tx.id)).to.include({
      error_code: 'provider_outcome_unknown',
      webhook_verdict: 'approved',
      webhook_verdict_reference: psp,
    });

    const tally = await runReconciler(tx.id);
    const refunds = await refundsOf(tx.id);
    expect(
      refunds.map((entry) => [entry.amount, entry.outcome]),
      JSON.stringify(tally),
    ).to.deep.equal([[AMOUNT, 'pending']]);
    expect((await control('GET', `/payments/${psp}`)).body).to.include({ refundedAmount: AMOUNT });
    // Adyen answers every refund `received`: the give-back is followed until its REFUND notification decides it.
    expect(await attemptOf(tx.id)).to.include({ error_code: 'provider_outcome_unknown' });
    const refunded = await deliver(
      connector,
      refundNotification(connector, {
        pspReference: refunds[0].provider_reference!,
        originalReference: psp,
        merchantReference: tx.id,
        success: true,
      }),
    );
    expect(refunded).to.deep.equal({ status: 200, body: { received: true, duplicate: false } });
    await runReconciler(`${tx.id}-refunded`);
    expect(await attemptOf(tx.id)).to.include({
      error_code: 'reconciled_charge_reversed',
      outcome: 'approved',
      provider_reference: psp,
    });
    expect(await read(tenant, tx.id)).to.include({ status: 'failed', amount_captured: 0 });
    expect(await eventTypes(tenant, tx.id)).to.deep.equal(events);

    const again = await deliver(connector, body);
    expect(again).to.deep.equal({ status: 200, body: { received: true, duplicate: true } });
    await runReconciler(`${tx.id}-again`);
    expect(await refundsOf(tx.id)).to.have.length(1);
    expect(await attemptOf(tx.id)).to.include({ error_code: 'reconciled_charge_reversed' });
    expect(await eventTypes(tenant, tx.id)).to.deep.equal(events);
  });

  it('past the resolution’s horizon, a declined notification settles the attempt as not charged without asking the provider anything', async function () {
    this.timeout(60_000);
    const tenant = await createTenant();
    const connector = await adyenConnector(tenant);
    const tx = await unknownCharge(tenant, connector, SERVER_ERROR_CARD);
    await pastResolutionHorizon(tx.id);
    const before = (await accountLedger(connector)).length;

    const delivered = await deliver(
      connector,
      authorisation(connector, { pspReference: 'DECLINED0001TEST', merchantReference: tx.id, success: false }),
    );
    expect(delivered.status).to.equal(200);
    await runReconciler(tx.id);
    expect(await attemptOf(tx.id)).to.include({
      error_code: 'reconciled_not_charged',
      provider_reference: 'DECLINED0001TEST',
    });
    expect(await accountLedger(connector)).to.have.length(before);
    expect((await read(tenant, tx.id)).status).to.equal('failed');
  });

  it('a notification for a failed transaction without an unresolved attempt changes nothing', async function () {
    this.timeout(60_000);
    const tenant = await createTenant();
    const connector = await adyenConnector(tenant);
    const tx = await chargeCard(tenant, CARDS.doNotHonor);
    expect(tx.status).to.equal('failed');
    const declined = await attemptOf(tx.id);
    expect(declined.error_code).to.not.equal('provider_outcome_unknown');
    const events = await eventTypes(tenant, tx.id);

    for (const success of [false, true]) {
      const delivered = await deliver(
        connector,
        authorisation(connector, {
          pspReference: `LATE${success ? 'OK' : 'NO'}000000TEST`,
          merchantReference: tx.id,
          success,
        }),
      );
      expect(delivered).to.deep.equal({ status: 200, body: { received: true, duplicate: false } });
    }
    expect(await attemptOf(tx.id)).to.deep.equal(declined);
    const after = (await api.get(`/transactions/${tx.id}`, { key: tenant.merchant_secret_key })).body.data;
    expect(after).to.include({ status: 'failed', amount_captured: 0 });
    expect(await eventTypes(tenant, tx.id)).to.deep.equal(events);
  });
});
