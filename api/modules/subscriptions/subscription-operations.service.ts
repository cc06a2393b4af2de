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
import { updateSubscription, type SubscriptionOperationRequest } from '../../temporal/subscriptions';
import { CancelBody, ChangeInstrumentBody, ChangeOfferBody, EmptyBody, PauseBody } from './subscriptions.schema';
import { assertAllowed, assertCustomerInstrument, getSubscription, targetOffer } from './subscriptions.service';

export interface OperationDefinition<B extends TSchema = TSchema> {
  /** The last path segment: POST …/:id/<action>. */
  action: string;
  summary: string;
  /** The OpenAPI description (who may call it and idempotency are added from the route). */
  description: string;
  body: B;
  /** A body that passes `body`, shown in the OpenAPI document. */
  example: Static<B>;
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
    description:
      'at_period_end true keeps the subscription active until current_period_end, then ends it (reactivate takes this back until then); false ends it now and no renewal is charged. Records a cancellation transition with its actor and emits subscription.cancelled when it ends.',
    example: { at_period_end: true, reason: 'Customer asked to stop at the end of the month' },
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
    description:
      'Clears cancel_at_period_end while the subscription is still active: it renews as before. Emits subscription.reactivated.',
    example: {},
    body: EmptyBody,
    operationOf: () => 'reactivate',
    request: async (_em, _sub, _body, caller) => ({ kind: 'reactivate', args: caller }),
  }),
  operation({
    action: 'pause',
    summary: 'Pause: renewals stop until resumed',
    description:
      'No renewal is charged while paused; resume restarts billing. Records a pause transition with its actor and emits subscription.paused.',
    example: { reason: 'Customer travelling for two months' },
    body: PauseBody,
    operationOf: () => 'pause',
    request: async (_em, _sub, body, caller) => ({ kind: 'pause', args: { ...caller, reason: body.reason ?? null } }),
  }),
  operation({
    action: 'resume',
    summary: 'Resume a paused subscription',
    description: 'Restarts billing of a paused subscription. Emits subscription.resumed.',
    example: {},
    body: EmptyBody,
    operationOf: () => 'resume',
    request: async (_em, _sub, _body, caller) => ({ kind: 'resume', args: caller }),
  }),
  operation({
    action: 'change-offer',
    summary: 'Move to another offer of the same product family (upgrade or downgrade)',
    description:
      "The target must be an active recurring offer of the subscription's product family (of its product when it has no family) with a price in the subscription's currency; moving across families is a cancel plus a new subscription (422 OFFER_NOT_IN_FAMILY). How the change is charged — at the next renewal, prorated now, or replacing the current charge — is the offer pair's change_charge_behavior (GET /offer-transitions/effective-behavior shows it before the move). A higher tier_order is an upgrade, a lower one a downgrade; emits subscription.upgraded or subscription.downgraded.",
    example: { to_offer_id: 'ofr_7Rk4pWz2YbQn' },
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
    description:
      "Renewals charge this saved card from now on; it must be an active instrument of the subscription's customer. Emits subscription.payment_method_changed.",
    example: { payment_instrument_id: 'pi_4Hs9KdLe2Qw8' },
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
