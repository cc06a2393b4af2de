/**
 * Renewal rules on the time-skipping server, each test named after its rule: a renewal is a
 * merchant-initiated charge referencing the first charge's network transaction id; a card reported gone emits
 * payment_method.action_required once; a next_renew offer change bills the new price only from the next renewal;
 * the deployment's dunning schedule is the workflow's input.
 */
import { expect } from 'chai';
import { Client } from '@temporalio/client';
import { EventSchema, TransactionSchema } from '../../db/entities';
import { subscriptionWorkflowId, viewQuery } from '../../workflows/subscription.shared';
import { transactionWorkflow } from '../../workflows/transaction';
import { transactionWorkflowId } from '../../workflows/transaction.shared';
import type { TransactionInput } from '../../workflows/lib/transaction-types';
import { idFromSeed, newId } from '../../domain/platform/ids';
import { createTenant } from '../helpers/factories';
import { cascade } from '../helpers/transactions';
import { createCustomer, saveCard } from '../helpers/vault';
import { createOffer } from '../helpers/catalog';
import { sleepPast } from '../helpers/time-skipping';
import { useSubscriptionWorkflows } from '../helpers/subscription-workflows';
import { stack } from '../helpers/stack';
import { api } from '../helpers/http';
import { accountOf, ledger } from '../helpers/sandbox';
import { override } from '../helpers/transactions';
import { storedSubscription, subscribed, type Subscribed } from '../helpers/subscriptions';

const DAY = 86_400_000;

describe('Subscription renewal rules (time-skipping test server)', () => {
  const { server, serverNow, worker, start, track, taskQueue } = useSubscriptionWorkflows(
    'test-subscription-renewal-rules',
  );
  const renewals = (sub: Subscribed) =>
    stack()
      .orm.em.fork()
      .find(TransactionSchema, { subscriptionId: sub.state.subscriptionId }, { orderBy: { createdAt: 'asc' } })
      .then((all) => all.filter((tx) => tx.metadata?.subscription_id === sub.state.subscriptionId));
  const authorizations = async (sub: Subscribed) => {
    const account = await accountOf('provider_a', sub.connector.credentials);
    return (await ledger({ provider: 'provider_a', account })).filter((e) => e.operation === 'authorize');
  };

  it('renewal is merchant-initiated: it references the initial_network_transaction_id kept from the first charge', async function () {
    this.timeout(60_000);
    const sub = await subscribed(await serverNow());
    const stored = await storedSubscription(sub.state.subscriptionId);
    expect(stored.initialNetworkTransactionId, 'the first charge approved with a network id').to.match(/^\d+$/);
    await start(sub);
    await (await worker()).runUntil(sleepPast(server.env, sub.state.periodEnd));
    const [renewal] = await renewals(sub);
    expect(renewal.status).to.equal('authorized');
    const [first, renewed] = await authorizations(sub);
    expect(first.mit_reference, 'the first charge is customer-initiated').to.equal(null);
    expect([renewed.reference, renewed.mit_reference]).to.deep.equal([renewal.id, stored.initialNetworkTransactionId]);
  });

  const actionRequired = (sub: Subscribed) =>
    stack()
      .orm.em.fork()
      .find(EventSchema, { merchantId: sub.tenant.merchant_id, type: 'payment_method.action_required' })
      .then((rows) => rows.map((row) => row.data));

  it('a renewal declined as card gone (stolen) emits payment_method.action_required once: data.object is the payment instrument as GET presents it, plus the reason and the subscription', async function () {
    this.timeout(60_000);
    const sub = await subscribed(await serverNow());
    await override(sub.connector, 'stolen_card', 1);
    await start(sub);
    await (await worker()).runUntil(sleepPast(server.env, sub.state.periodEnd));
    const [renewal] = await renewals(sub);
    const events = await actionRequired(sub);
    expect(events).to.have.length(1);
    const { action_required: action, ...instrument } = events[0];
    const read = await api.get(`/merchants/${sub.tenant.merchant_id}/payment-instruments/${sub.instrumentId}`, {
      key: sub.tenant.merchant_secret_key,
    });
    expect(read.status, read.text).to.equal(200);
    expect(instrument).to.deep.equal(read.body.data);
    expect(Object.keys(events[0])).to.deep.equal([...Object.keys(read.body.data), 'action_required']);
    expect(action).to.deep.equal({
      // The one decline vocabulary: the provider's stolen_card is lost_or_stolen.
      reason: 'lost_or_stolen',
      subscription_id: sub.state.subscriptionId,
      order_id: renewal.orderId,
    });
    expect(JSON.stringify(events[0])).to.not.include('4242424242424242');
  });

  it('a renewal declined for a reason that is not the card (do_not_honor) emits no payment_method.action_required', async function () {
    this.timeout(60_000);
    const sub = await subscribed(await serverNow());
    await override(sub.connector, 'do_not_honor', 1);
    await start(sub);
    await (await worker()).runUntil(sleepPast(server.env, sub.state.periodEnd));
    expect((await storedSubscription(sub.state.subscriptionId)).status).to.equal('dunning');
    expect(await actionRequired(sub)).to.deep.equal([]);
  });

  it('dunning schedule is the deployment setting: the first charge hands it to the new subscription workflow as input', async function () {
    this.timeout(60_000);
    const tenant = await createTenant();
    const [connector] = await cascade(tenant, ['provider_a']);
    const customerId = await createCustomer(tenant);
    const card = await saveCard(tenant, customerId);
    const { offer, product } = await createOffer(tenant.merchant_id, {
      prices: [{ currency: 'USD', amount: 999, isDefault: true }],
    });
    const transactionId = newId('tx');
    const input: TransactionInput = {
      transactionId,
      orderId: newId('ord'),
      organizationId: tenant.organization_id,
      merchantId: tenant.merchant_id,
      paymentMethod: 'credit_card',
      chargeType: 'payment',
      country: 'US',
      amount: 999,
      currency: 'USD',
      capture: true,
      walletType: null,
      installments: null,
      riskScore: null,
      customerId,
      cardTokenId: null,
      paymentInstrumentId: card.id,
      checkoutSessionId: null,
      externalOrderId: null,
      metadata: null,
      cardBrand: null,
      binCountry: null,
      order: {
        orderType: 'checkout',
        recurrence: 'initial',
        items: [
          {
            productId: product.id,
            offerId: offer.id,
            productName: product.name,
            offerName: offer.name,
            billingCycle: 'monthly',
            cycleLimit: null,
            isFirstCharge: true,
            quantity: 1,
            unitAmount: 999,
            totalAmount: 999,
            currency: 'USD',
            installments: null,
          },
        ],
      },
    };
    const subscription = server.env.client.workflow.getHandle(subscriptionWorkflowId(idFromSeed('sub', transactionId)));
    track(subscription.workflowId);
    const view = await (
      await worker([2, 4])
    ).runUntil(async () => {
      // A plain client: the environment's own would let the server skip time while it waits for the result, and the
      // new subscription's renewals could then run before the decline below is armed.
      const plain = new Client({ connection: server.env.connection, namespace: server.env.namespace });
      const charged = await plain.workflow.execute(transactionWorkflow, {
        workflowId: transactionWorkflowId(transactionId),
        taskQueue: taskQueue(),
        args: [input],
      });
      expect(charged.status).to.equal('authorized');
      await override(connector, 'do_not_honor', 1);
      await sleepPast(server.env, (await subscription.query(viewQuery)).nextWakeAt!);
      return subscription.query(viewQuery);
    });
    expect(view.state.status, JSON.stringify(view)).to.equal('dunning');
    // The first retry two days after the failed renewal (the default would be one).
    expect(Date.parse(view.nextWakeAt!) - Date.parse(view.state.dunningStartedAt!)).to.equal(2 * DAY);
  });
});
