/**
 * The subscription operations (cancel, reactivate, pause, resume, change-offer, change-payment-instrument) as one
 * table both the public API and the merchant Dashboard mount: the same checks, the same workflow Update, the same
 * answer. Only the caller differs — who triggered the move and, for a signed-in person, the actor snapshot the
 * transition records.
 */
import { randomUUID } from 'node:crypto';
import type { Static, TSchema } from '@sinclair/typebox';
import type { EntityManager } from '@mikro-orm/postgresql';
import { ApiKeySchema, MerchantUserSchema, type Subscription } from '../../../db/entities';
import { errors } from '../../../domain/platform/errors';
import type { Caller } from '../../../workflows/lib/subscription-moves';
import type { SubscriptionOperation } from '../../../workflows/lib/subscription-rules';
import type { AppDeps } from '../../deps';
import type { DashboardSession } from '../../http/dashboard-auth';
import { updateSubscription, type SubscriptionOperationRequest } from '../../temporal';
import { CancelBody, ChangeInstrumentBody, ChangeOfferBody, EmptyBody, PauseBody } from './subscriptions.schema';
import { assertAllowed, assertCustomerInstrument, getSubscription, targetOffer } from './subscriptions.service';

export interface OperationDefinition<B extends TSchema = TSchema> {
  /** The last path segment: POST …/:id/<action>. */
  action: string;
  summary: string;
  body: B;
  /** Which row of the state table the request asks for (cancel splits on at_period_end). */
  operationOf(body: Static<B>): SubscriptionOperation;
  /** The workflow Update to send, after the checks that need the database. */
  request(em: EntityManager, sub: Subscription, body: Static<B>, caller: Caller): Promise<SubscriptionOperationRequest>;
}

const operation = <B extends TSchema>(definition: OperationDefinition<B>) => definition as OperationDefinition;

export const SUBSCRIPTION_OPERATIONS: readonly OperationDefinition[] = [
  operation({
    action: 'cancel',
    summary: 'Cancel now, or at the end of the current period (at_period_end true)',
    body: CancelBody,
    operationOf: (body) => (body.at_period_end ? 'cancel_at_period_end' : 'cancel_now'),
    request: async (_em, _sub, body, caller) => ({
      kind: 'cancel',
      args: { ...caller, atPeriodEnd: body.at_period_end, reason: body.reason ?? null },
    }),
  }),
  operation({
    action: 'reactivate',
    summary: 'Take back a scheduled cancellation',
    body: EmptyBody,
    operationOf: () => 'reactivate',
    request: async (_em, _sub, _body, caller) => ({ kind: 'reactivate', args: caller }),
  }),
  operation({
    action: 'pause',
    summary: 'Pause: renewals stop until resumed',
    body: PauseBody,
    operationOf: () => 'pause',
    request: async (_em, _sub, body, caller) => ({ kind: 'pause', args: { ...caller, reason: body.reason ?? null } }),
  }),
  operation({
    action: 'resume',
    summary: 'Resume a paused subscription',
    body: EmptyBody,
    operationOf: () => 'resume',
    request: async (_em, _sub, _body, caller) => ({ kind: 'resume', args: caller }),
  }),
  operation({
    action: 'change-offer',
    summary: 'Move to another offer of the same product family (upgrade or downgrade)',
    body: ChangeOfferBody,
    operationOf: () => 'change_offer',
    request: async (em, sub, body, caller) => ({
      kind: 'change_offer',
      args: { ...caller, target: await targetOffer(em, sub, body.to_offer_id) },
    }),
  }),
  operation({
    action: 'change-payment-instrument',
    summary: "Bill another of the customer's active instruments from now on",
    body: ChangeInstrumentBody,
    operationOf: () => 'change_payment_instrument',
    request: async (em, sub, body, caller) => {
      await assertCustomerInstrument(em, sub, body.payment_instrument_id);
      return {
        kind: 'change_payment_instrument',
        args: { ...caller, paymentInstrumentId: body.payment_instrument_id },
      };
    },
  }),
];

/**
 * Operations through the public API are the merchant's own calls: triggered_by admin, and (Document 3: "actor (for
 * admin-triggered: snapshot {id, type, name, email} …)") the snapshot of the API key that made the call — the
 * key has no person behind it, so type api_key, its name as it is now, no email.
 */
export async function apiKeyCaller(em: EntityManager, keyId: string): Promise<Caller> {
  const key = await em.findOne(ApiKeySchema, { id: keyId });
  return { triggeredBy: 'admin', actor: { id: keyId, type: 'api_key', name: key?.name ?? null, email: null } };
}

/**
 * A merchant Dashboard user's call: triggered_by admin with the `{id, type, name, email}` snapshot of the user as
 * they are now (Document 3 "Subscription transition"), so a later rename does not rewrite history.
 */
export async function dashboardCaller(em: EntityManager, session: DashboardSession): Promise<Caller> {
  const user = await em.findOne(MerchantUserSchema, { id: session.userId });
  if (!user) throw errors.unauthenticated('The access token is invalid');
  return { triggeredBy: 'admin', actor: { id: user.id, type: 'merchant_user', name: user.name, email: user.email } };
}

/**
 * Checks the move against the stored state (422 without a round trip), runs it as an Update of the subscription's
 * workflow and answers with the subscription as the workflow wrote it. `updateId` joins a retried request to its
 * first Update (derived from the Idempotency-Key when the caller sent one).
 */
export async function runSubscriptionOperation(
  em: EntityManager,
  deps: AppDeps,
  target: { merchantId: string; subscriptionId: string },
  definition: OperationDefinition,
  input: unknown,
  caller: Caller,
  updateId: string = randomUUID(),
): Promise<Subscription> {
  const sub = await getSubscription(em, target.merchantId, target.subscriptionId);
  assertAllowed(sub, definition.operationOf(input));
  const request = await definition.request(em, sub, input, caller);
  await updateSubscription(deps.temporal.client, sub.id, request, updateId, deps.config.workflowWaitMs);
  em.clear();
  return getSubscription(em, target.merchantId, sub.id);
}
