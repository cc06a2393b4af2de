/**
 * A charge whose workflow was started but not yet opened by a worker when the request's wait ended (504
 * CHARGE_STILL_PROCESSING) can still run, so what it holds stays held: its Idempotency-Key (the same body retried
 * joins that charge, an edited body is 409 IDEMPOTENCY_KEY_CONFLICT) and its checkout session (another payment is
 * 409 CHECKOUT_SESSION_PAYMENT_IN_PROGRESS). A checkout abandoned before its charge opened is not charged at all.
 */
import { expect } from 'chai';
import { startApi, type RunningApi } from '../../api/server';
import { api } from '../helpers/http';
import { createTenant, type Tenant } from '../helpers/factories';
import { expectError } from '../helpers/envelope';
import { createSession } from '../helpers/checkout';
import { createOffer } from '../helpers/catalog';
import { accountOf, ledger } from '../helpers/sandbox';
import { stack, withWorkerDown } from '../helpers/stack';
import { cardCharge, cardToken, cascade, waitForTransaction, type CascadeConnector } from '../helpers/transactions';
import { CARDS, createCustomer, saveCard } from '../helpers/vault';

/** Short, so a charge no worker takes answers 504 quickly. */
const WAIT_MS = 1_000;

describe('A charge that outlives the wait before a worker opened it', function () {
  this.timeout(120_000);
  let app: RunningApi;
  let tenant: Tenant;
  let connector: CascadeConnector;
  let customerId: string;
  let instrumentId: string;
  before(async () => {
    app = await startApi({ ...stack().config, workflowWaitMs: WAIT_MS }, 0);
    tenant = await createTenant();
    [connector] = await cascade(tenant, ['provider_a']);
    customerId = await createCustomer(tenant);
    instrumentId = (await saveCard(tenant, customerId, CARDS.visa)).id;
  });
  after(async () => {
    await app?.stop();
  });

  /** Sent to the API whose wait is WAIT_MS. */
  const post = (path: string, body: Record<string, unknown>, idempotencyKey: string) =>
    api.post(path, {
      key: tenant.merchant_secret_key,
      headers: { 'idempotency-key': idempotencyKey },
      body,
      baseUrl: app.url,
    });

  async function authorizations(): Promise<string[]> {
    const entries = await ledger({
      provider: 'provider_a',
      account: await accountOf('provider_a', connector.credentials),
    });
    return entries.filter((e) => e.operation === 'authorize' && !e.replayed).map((e) => e.reference!);
  }

  async function checkout(): Promise<string> {
    const { offer } = await createOffer(tenant.merchant_id, { billingCycle: 'none' });
    return (await createSession(tenant, { offer_id: offer.id, customer_id: customerId, selected_currency: 'USD' })).id;
  }

  const savedCardCharge = (checkoutId: string) => ({
    payment_method: 'credit_card',
    charge_type: 'payment',
    country: 'US',
    checkout_session_id: checkoutId,
    payment_instrument_id: instrumentId,
  });

  const stillProcessing = (res: Awaited<ReturnType<typeof post>>): string =>
    expectError(res, 504, 'external_service_error', 'CHARGE_STILL_PROCESSING').details.transaction_id;

  it('keeps the Idempotency-Key and the checkout session claimed for the charge, and charges only that charge', async () => {
    const body = cardCharge(await cardToken(tenant), { metadata: { cart: 'c-1' } });
    const paidCheckout = await checkout();
    const abandonedCheckout = await checkout();
    const before = await authorizations();

    const seen = await withWorkerDown(async () => {
      const charged = stillProcessing(await post('/transactions', body, 'edited-body'));
      // The same key with an edited body would be a second charge while the first is still queued.
      const edited = await post('/transactions', { ...body, metadata: { cart: 'c-2' } }, 'edited-body');
      expectError(edited, 409, 'conflict_error', 'IDEMPOTENCY_KEY_CONFLICT');
      // The same request retried joins its charge.
      expect(stillProcessing(await post('/transactions', body, 'edited-body'))).to.equal(charged);

      const checkoutPayment = stillProcessing(await post('/transactions', savedCardCharge(paidCheckout), 'first'));
      const second = await post('/transactions', savedCardCharge(paidCheckout), 'second');
      expectError(second, 409, 'conflict_error', 'CHECKOUT_SESSION_PAYMENT_IN_PROGRESS');

      const unpaid = stillProcessing(await post('/transactions', savedCardCharge(abandonedCheckout), 'abandoned'));
      const abandoned = await api.post(`/checkout-sessions/${abandonedCheckout}/abandon`, {
        key: tenant.merchant_secret_key,
      });
      expect(abandoned.status, abandoned.text).to.equal(200);
      return { charged, checkoutPayment, unpaid };
    });

    // A worker is back: the queued charges run.
    for (const id of [seen.charged, seen.checkoutPayment]) {
      const tx = await waitForTransaction(tenant, id, (t) => t?.status === 'authorized');
      expect(tx?.status, id).to.equal('authorized');
    }
    const unpaid = await waitForTransaction(tenant, seen.unpaid, (t) => t?.status === 'failed');
    expect(unpaid).to.include({ status: 'failed', failure_code: 'checkout_session_unavailable' });
    expect(unpaid.timeline).to.deep.equal([]);
    const replayed = await post('/transactions', body, 'edited-body');
    expect(replayed.body.data?.id, replayed.text).to.equal(seen.charged);
    expect((await authorizations()).filter((ref) => !before.includes(ref)).sort()).to.deep.equal(
      [seen.charged, seen.checkoutPayment].sort(),
    );
  });
});
