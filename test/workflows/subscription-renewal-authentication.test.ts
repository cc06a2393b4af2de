/**
 * A renewal whose issuer demands authentication (the 4000 0027 6000 3184 card: every merchant-initiated charge is
 * declined authentication_required) on the time-skipping server: the subscription enters dunning, fires
 * payment_method.action_required with a hosted link and e-mails it to the customer; the link starts one on-session
 * charge that the customer authenticates (the renewal is paid, on its own calendar), fails (dunning goes on) or
 * ignores (dunning ends as it does today). The challenge is the sandbox's real one, answered by a form POST.
 */
import { expect } from 'chai';
import { type WorkflowUpdateFailedError, type WorkflowHandle } from '@temporalio/client';
import type { ApplicationFailure } from '@temporalio/common';
import { authenticationWorkflowId, transactionWorkflowId } from '../../workflows/transaction.shared';
import { transactionAuthenticationWorkflow } from '../../workflows/transaction-authentication';
import {
  CustomerSchema,
  EventSchema,
  MailMessageSchema,
  PaymentInstrumentSchema,
  TransactionAttemptSchema,
  TransactionSchema,
} from '../../db/entities';
import { openMailContent } from '../../domain/mail/mail.outbox';
import { customerChargeOf, readAuthenticationToken } from '../../domain/subscriptions/subscriptions.authentication';
import { authenticateRenewalUpdate, viewQuery } from '../../workflows/subscription.shared';
import { AUTHENTICATION_LINK_INVALID, refuseAuthentication } from '../../workflows/lib/subscription-rules';
import { useSubscriptionWorkflows } from '../helpers/subscription-workflows';
import { stack } from '../helpers/stack';
import { vaultSettingsOf } from '../../activities/vault';
import { createTenant, giveWebsite } from '../helpers/factories';
import { cascade } from '../helpers/transactions';
import { sleepPast } from '../helpers/time-skipping';
import {
  renewalCharges,
  storedSubscription,
  subscribed,
  transitionsOf,
  type Subscribed,
} from '../helpers/subscriptions';

const DAY = 86_400_000;
const MINUTE = 60_000;
/** The customer's challenge window (THREE_DS_CHALLENGE_MINUTES' default). */
const CHALLENGE_MS = 15 * MINUTE;
const AUTHENTICATE_EVERY_CHARGE = { number: '4000002760003184', cvc: '123', brand: 'visa' };

const actionEvents = (sub: Subscribed) =>
  stack()
    .orm.em.fork()
    .find(EventSchema, { merchantId: sub.tenant.merchant_id, type: 'payment_method.action_required' })
    .then((events) => events.map((event) => event.data as any));

/** The messages the subscription's customer was sent about the renewal, opened. */
async function mailsOf(sub: Subscribed) {
  const em = stack().orm.em.fork();
  const customer = await em.findOneOrFail(CustomerSchema, { id: sub.customerId });
  const messages = await em.find(MailMessageSchema, { recipient: customer.email!, kind: 'renewal_authentication' });
  return messages.map((message) => openMailContent(stack().config.encryptionKeys, message));
}

/** Submits the sandbox's challenge page for the customer's charge (its redirect to our return endpoint is not followed). */
async function answerChallenge(sub: Subscribed, transactionId: string, outcome: 'authenticated' | 'failed') {
  const charge = await customerChargeOf(stack().orm.em.fork(), sub.tenant.merchant_id, transactionId);
  const attempts = await stack().orm.em.fork().find(TransactionAttemptSchema, { transactionId });
  expect(charge?.nextAction?.url, JSON.stringify({ charge, attempts })).to.be.a('string');
  const res = await fetch(charge!.nextAction!.url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: `outcome=${outcome}`,
    redirect: 'manual',
  });
  expect(res.status).to.equal(303);
}

describe('subscription renewal authentication (time-skipping test server)', () => {
  const {
    server,
    serverNow,
    taskQueue,
    worker: subscriptionWorker,
    start,
  } = useSubscriptionWorkflows('test-renewal-authentication');
  /**
   * The charge's activity stamps its challenge's deadline on the wall clock, and its wait compares it with the
   * workflow's clock: on this server that clock runs ahead of the wall clock by every day the suite skipped, so a
   * 15-minute window would be over (the charge's own wait would cancel the payment at once) before the test can
   * replace that wait. A year outlasts what the suite skips.
   */
  const worker = () =>
    subscriptionWorker(undefined, stack().orm, { ...vaultSettingsOf(stack().config), threeDsChallengeMs: 365 * DAY });

  /**
   * Opens the link (the Update the hosted page sends) and waits for the customer's charge to reach its challenge;
   * then, as the 3-D Secure wait's own suite does, replaces the charge's wait (its abandoned child) with one the test
   * starts, whose deadline is on this server's clock. Left in place, that child completes after its parent closed,
   * and from then on the time-skipping server skipped no more time here: every later skip ran in real time.
   */
  async function startCustomerCharge(sub: Subscribed, handle: WorkflowHandle, linkId: string) {
    const { transactionId } = await handle.executeUpdate(authenticateRenewalUpdate, { args: [{ linkId }] });
    // The charge answers once the provider challenged it; its wait then waits for the customer, so the server must
    // not skip time meanwhile: an extra lock outlasts the one the test client's result() lifts.
    const testService = server.env.connection.testService;
    if (!testService) throw new Error('The time-skipping server has a test service');
    await testService.lockTimeSkipping({});
    const charged = await server.env.client.workflow
      .getHandle(transactionWorkflowId(transactionId))
      .result()
      .finally(() => testService.unlockTimeSkipping({}));
    expect(charged).to.include({ status: 'pending' });
    await server.env.client.workflow.getHandle(authenticationWorkflowId(transactionId)).terminate('test');
    const { amount } = await stack().orm.em.fork().findOneOrFail(TransactionSchema, { id: transactionId });
    const wait = await server.env.client.workflow.start(transactionAuthenticationWorkflow, {
      workflowId: `test-${authenticationWorkflowId(transactionId)}`,
      taskQueue: taskQueue(),
      args: [
        {
          transactionId,
          attemptNumber: 1,
          attempt: { connectorId: sub.connector.id, providerSlug: 'provider_a', nodeId: null, threeDs: true },
          amount: Number(amount),
          capture: true,
          expiresAt: new Date((await serverNow()).getTime() + CHALLENGE_MS).toISOString(),
        },
      ],
    });
    return { transactionId, wait };
  }

  /** The link the subscription's (first) payment_method.action_required event carries, read from its token. */
  async function linkOf(sub: Subscribed) {
    const [event] = await actionEvents(sub);
    const token = new URL(event.action_required.url).searchParams.get('token')!;
    return readAuthenticationToken(stack().config.encryptionKeys, token)!;
  }

  /** A 14-day trial on the card; the trial's conversion (merchant-initiated) is declined authentication_required. */
  async function awaitingCustomer() {
    // The customer's charge is challenged: 3-D Secure needs the merchant's website, an issuer's challenge too.
    const tenant = await createTenant();
    await giveWebsite(tenant);
    const [connector] = await cascade(tenant, ['provider_a']);
    const sub = await subscribed(
      await serverNow(),
      { freeTrial: true, trialDays: 14 },
      { tenant, connector },
      AUTHENTICATE_EVERY_CHARGE,
    );
    const handle = await start(sub);
    return { sub, handle };
  }

  it('a renewal declined authentication_required enters dunning, fires payment_method.action_required with a hosted link and e-mails it; neither carries card data', async function () {
    this.timeout(120_000);
    const { sub, handle } = await awaitingCustomer();
    await (
      await worker()
    ).runUntil(async () => {
      await sleepPast(server.env, sub.state.trialEnd!);
      expect((await handle.query(viewQuery)).state.status).to.equal('dunning');
    });
    const events = await actionEvents(sub);
    expect(events).to.have.length(1);
    expect(events[0].action_required).to.include({
      reason: 'authentication_required',
      subscription_id: sub.state.subscriptionId,
    });
    const url: string = events[0].action_required.url;
    expect(url).to.match(/\/api\/v1\/renewal-authentication\?token=/);
    const [mail, ...more] = await mailsOf(sub);
    expect(more).to.have.length(0);
    expect(mail.text).to.include(url);
    for (const text of [JSON.stringify(events[0]), mail.text, mail.subject]) {
      expect(text).to.not.include(AUTHENTICATE_EVERY_CHARGE.number);
      expect(text).to.not.include(AUTHENTICATE_EVERY_CHARGE.cvc + '"');
    }
    expect(mail.text).to.not.include('3184');
  });

  it('the customer authenticates through the link: the renewal is paid on its own calendar, dunning ends, and no retry charges again', async function () {
    this.timeout(300_000);
    const { sub, handle } = await awaitingCustomer();
    await (
      await worker()
    ).runUntil(async () => {
      await sleepPast(server.env, sub.state.trialEnd!);
      const link = await linkOf(sub);
      expect(link.subscriptionId).to.equal(sub.state.subscriptionId);
      const { transactionId, wait } = await startCustomerCharge(sub, handle, link.linkId);
      // The link is single-use: the workflow refuses a second click.
      const { state } = await handle.query(viewQuery);
      expect(refuseAuthentication(state, link.linkId, (await serverNow()).getTime())).to.include({
        code: AUTHENTICATION_LINK_INVALID,
      });
      await answerChallenge(sub, transactionId, 'authenticated');
      expect(await wait.result()).to.include({ status: 'authorized' });
      await server.env.sleep(20 * MINUTE);
      expect((await handle.query(viewQuery)).state.status).to.equal('active');
      // Past every scheduled dunning retry: none charges the paid renewal again.
      await server.env.sleep(8 * DAY);
    });
    const stored = await storedSubscription(sub.state.subscriptionId);
    expect([stored.status, stored.cyclesCompleted, stored.dunningAttemptCount]).to.deep.equal(['active', 1, 0]);
    expect(stored.currentPeriodStart.toISOString()).to.equal(sub.state.trialEnd);
    // Every merchant-initiated renewal charge was declined; the one paid charge is the customer's own.
    expect((await renewalCharges(sub)).filter((tx) => tx.status === 'authorized')).to.have.length(0);
    const customerCharges = await stack()
      .orm.em.fork()
      .find(TransactionSchema, {
        merchantId: sub.tenant.merchant_id,
        metadata: { subscription_id: sub.state.subscriptionId },
      });
    expect(customerCharges.filter((tx) => tx.status === 'authorized')).to.have.length(1);
    const last = (await transitionsOf(sub)).at(-1)!;
    expect([last.transitionType, last.toStatus, (last.metadata as any)?.outcome]).to.deep.equal([
      'dunning_retry',
      'active',
      'succeeded',
    ]);
  });

  it('a failed authentication leaves the subscription in dunning, its retries still scheduled', async function () {
    this.timeout(300_000);
    const { sub, handle } = await awaitingCustomer();
    await (
      await worker()
    ).runUntil(async () => {
      await sleepPast(server.env, sub.state.trialEnd!);
      const { linkId } = await linkOf(sub);
      const { transactionId, wait } = await startCustomerCharge(sub, handle, linkId);
      await answerChallenge(sub, transactionId, 'failed');
      expect(await wait.result()).to.include({ status: 'failed' });
      await server.env.sleep(20 * MINUTE);
      const view = await handle.query(viewQuery);
      expect([view.state.status, view.state.dunningAttempts, view.nextWakeReason]).to.deep.equal([
        'dunning',
        0,
        'dunning_retry',
      ]);
    });
  });

  it('a link whose saved card was revoked since is refused, saying why, and changes nothing', async function () {
    this.timeout(120_000);
    const { sub, handle } = await awaitingCustomer();
    await (
      await worker()
    ).runUntil(async () => {
      await sleepPast(server.env, sub.state.trialEnd!);
      const { linkId } = await linkOf(sub);
      const before = (await handle.query(viewQuery)).state;
      await stack()
        .orm.em.fork()
        .nativeUpdate(PaymentInstrumentSchema, { id: before.paymentInstrumentId }, { status: 'revoked' });
      const refused = await handle.executeUpdate(authenticateRenewalUpdate, { args: [{ linkId }] }).then(
        () => null,
        (error: WorkflowUpdateFailedError) => error.cause as ApplicationFailure,
      );
      expect([refused?.type, refused?.message]).to.deep.equal([
        AUTHENTICATION_LINK_INVALID,
        'The saved card can no longer be charged (payment_instrument_revoked): add a new payment method to pay this renewal',
      ]);
      const after = (await handle.query(viewQuery)).state;
      expect([after.status, after.dunningAttempts, after.authentication?.used]).to.deep.equal([
        before.status,
        before.dunningAttempts,
        false,
      ]);
    });
  });

  it('a customer who never answers: dunning ends as it does today (cancelled, dunning_exhausted), and the link is refused after', async function () {
    this.timeout(300_000);
    const { sub, handle } = await awaitingCustomer();
    await (
      await worker()
    ).runUntil(async () => {
      await sleepPast(server.env, sub.state.trialEnd!);
      const { linkId } = await linkOf(sub);
      await server.env.sleep(8 * DAY);
      expect(await handle.result()).to.equal('cancelled');
      // A query is answered by a worker, even on a closed workflow: asked while this one runs.
      const { state } = await handle.query(viewQuery);
      expect(refuseAuthentication(state, linkId, (await serverNow()).getTime())).to.include({
        code: AUTHENTICATION_LINK_INVALID,
      });
    });
    const stored = await storedSubscription(sub.state.subscriptionId);
    expect([stored.status, stored.cancellationReason]).to.deep.equal(['cancelled', 'dunning_exhausted']);
  });

  it('a link is bound to its subscription: a forged or altered token reads as nothing', async () => {
    const keys = stack().config.encryptionKeys;
    expect(readAuthenticationToken(keys, 'sub_x.sal_y.forged')).to.equal(null);
    expect(readAuthenticationToken(keys, 'garbage')).to.equal(null);
  });
});
