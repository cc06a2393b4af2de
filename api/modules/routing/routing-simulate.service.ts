/**
 * POST .../routing-profiles/:profile_id/simulate (beyond the spec): the plan the engine would produce for a
 * charge, with the same loader and the same pure function the charge workflow uses. Works on inactive profiles
 * too, so a tree can be checked before it goes live. Changes nothing.
 */
import { Type, type Static } from '@sinclair/typebox';
import type { EntityManager } from '@mikro-orm/postgresql';
import { errors } from '../../../domain/platform/errors';
import { Country, Currency, Money, Nullable, StrictObject, StringEnum } from '../../http/schema';
import { evaluate, type TransactionPaymentMethod } from '../../../domain/routing/routing.evaluate';
import { loadRoutingPlanInput } from '../../../domain/routing/routing.load';

const CHARGE_METHODS = ['credit_card', 'debit_card', 'pix', 'boleto', 'wallet'] as const;
const Reason = StringEnum(['matched', 'fallback', 'default'] as const);
const SkipReason = StringEnum([
  'unknown_connector',
  'inactive',
  'circuit_open',
  'test_mode_mismatch',
  'unsupported_payment_method',
  'unsupported_currency',
  'unsupported_card_brand',
  'three_ds_unsupported',
] as const);

export const SimulateBody = StrictObject({
  payment_method: Type.Optional(
    StringEnum(CHARGE_METHODS, { description: "Defaults to the profile's method; required for a * profile" }),
  ),
  currency: Currency,
  amount: Money('The charge to simulate', { minimum: 0 }),
  card_brand: Type.Optional(Nullable(Type.String({ pattern: '^[A-Za-z0-9_-]{2,32}$' }))),
  bin_country: Type.Optional(Nullable(Country)),
  is_recurring: Type.Optional(Type.Boolean({ default: false })),
  installments: Type.Optional(Type.Integer({ minimum: 1, maximum: 120, default: 1 })),
  random_draw: Type.Optional(
    Type.Number({
      minimum: 0,
      exclusiveMaximum: 1,
      description: 'Compared with math/random conditions; drawn at random when absent',
    }),
  ),
});

export const SimulationObject = StrictObject({
  profile_id: Type.String(),
  profile_version: Type.Integer(),
  payment_method: StringEnum(CHARGE_METHODS),
  random_draw: Type.Number(),
  matched_node_id: Nullable(Type.String()),
  plan: Type.Array(
    StrictObject({
      merchant_connector_id: Type.String(),
      connector_name: Nullable(Type.String()),
      provider_slug: Nullable(Type.String()),
      node_id: Nullable(Type.String()),
      require_3ds: StringEnum(['never', 'if_supported', 'always'] as const),
      three_ds_requested: Type.Boolean({
        description:
          'The charge would ask this provider to authenticate the card (3-D Secure): a customer-initiated card charge on a node with require_3ds always or if_supported, at a provider that runs 3-D Secure',
      }),
      reason: Reason,
    }),
  ),
  skipped: Type.Array(
    StrictObject({
      merchant_connector_id: Type.String(),
      node_id: Nullable(Type.String()),
      reason: SkipReason,
    }),
  ),
});

type SimulateInput = Static<typeof SimulateBody>;

export async function simulate(
  em: EntityManager,
  merchantId: string,
  profileId: string,
  input: SimulateInput,
  draw: () => number = Math.random,
) {
  const loaded = await loadRoutingPlanInput(em, merchantId, { profileId });
  if (!loaded) throw errors.notFound('No such routing profile');
  const { profile, program, connectors, connectorNames } = loaded;
  let paymentMethod: TransactionPaymentMethod;
  if (profile.paymentMethod === '*') {
    if (!input.payment_method)
      throw errors.validation({ payment_method: ['is required to simulate a catch-all (*) profile'] });
    paymentMethod = input.payment_method;
  } else {
    if (input.payment_method && input.payment_method !== profile.paymentMethod) {
      throw errors.invalidValue('payment_method', `must be ${profile.paymentMethod}, the method this profile routes`);
    }
    paymentMethod = profile.paymentMethod;
  }
  const randomDraw = input.random_draw ?? draw();
  const plan = evaluate(program, connectors, {
    paymentMethod,
    currency: input.currency,
    amount: input.amount,
    cardBrand: input.card_brand ?? null,
    binCountry: input.bin_country ?? null,
    isRecurring: input.is_recurring ?? false,
    installments: input.installments ?? 1,
    randomDraw,
  });
  return {
    profile_id: profile.id,
    profile_version: profile.version,
    payment_method: paymentMethod,
    random_draw: randomDraw,
    matched_node_id: plan.matchedNodeId,
    plan: plan.attempts.map((attempt) => ({
      merchant_connector_id: attempt.connectorId,
      connector_name: connectorNames.get(attempt.connectorId) ?? null,
      provider_slug: connectors.get(attempt.connectorId)?.providerSlug ?? null,
      node_id: attempt.nodeId,
      require_3ds: attempt.require3ds,
      three_ds_requested: attempt.threeDs === true,
      reason: attempt.reason,
    })),
    skipped: plan.skipped.map((skip) => ({
      merchant_connector_id: skip.connectorId,
      node_id: skip.nodeId,
      reason: skip.reason,
    })),
  };
}
