/**
 * The merchant's routing settings (its decline table) and a transaction's routing explanation — how
 * routing planned that charge: the order tried, the connectors skipped and why (inactive, circuit_open,
 * unsupported_*), the half-open probe, the approval-rate scores and the exploration pick.
 */
import { Type } from '@sinclair/typebox';
import { defineRoute } from '../../http/define-route';
import { Nullable, StrictObject, StringEnum, Timestamp } from '../../http/schema';
import { actorOf, diff, recordActivity } from '../../../domain/merchants/merchants.activity';
import { MerchantSchema } from '../../../db/entities';
import { errors } from '../../../domain/platform/errors';
import {
  defaultDeclineActions,
  readRoutingSettings,
  writeRoutingSettings,
  type RoutingSettings,
} from '../../../domain/routing/routing.load';
import { MerchantQuery, TransactionParams } from '../transactions/transactions.schema';
import { getTransaction } from '../transactions/transactions.service';
import { MerchantParams, NoQuery } from './routing-profiles.schema';
import { routingRead, routingWrite } from './routing-profiles.routes';

const Action = StringEnum(['retry_next_connector', 'stop'] as const);
const Categories = StrictObject(
  {
    soft_decline: Type.Optional(Action),
    hard_decline: Type.Optional(Action),
    processing_error: Type.Optional(Action),
    network_error: Type.Optional(Action),
  },
  {
    description:
      'Per decline category, whether the charge moves on to the next connector. An unknown outcome always stops (the provider may have charged)',
  },
);
// additionalProperties: false, or a key outside the pattern would pass unchecked (patternProperties alone).
const Codes = Type.Record(Type.String({ pattern: '^[A-Za-z0-9_.:-]{1,64}$' }), Action, {
  additionalProperties: false,
  maxProperties: 200,
  description:
    "Raw provider codes (the attempt's provider_code) with their own action; a code's action wins over its category's",
});

export const RoutingSettingsBody = StrictObject({
  decline_actions: Categories,
  code_actions: Type.Optional(Codes),
});

export const RoutingSettingsObject = StrictObject({
  merchant_id: Type.String(),
  decline_actions: StrictObject({
    soft_decline: Action,
    hard_decline: Action,
    processing_error: Action,
    network_error: Action,
  }),
  code_actions: Type.Record(Type.String(), Action),
  updated_at: Nullable(Timestamp),
});

const present = (merchantId: string, settings: RoutingSettings) => ({
  merchant_id: merchantId,
  decline_actions: settings.declineActions,
  code_actions: settings.codeActions,
  updated_at: settings.updatedAt ? settings.updatedAt.toISOString() : null,
});

export const RoutingExplanationObject = StrictObject({
  transaction_id: Type.String(),
  recorded: Type.Boolean({ description: 'false for charges planned before routing explanations were recorded' }),
  profile_id: Nullable(Type.String()),
  profile_version: Nullable(Type.Integer()),
  optimize: StringEnum(['none', 'approval_rate'] as const),
  attempts: Type.Array(
    StrictObject({
      connector_id: Type.String(),
      provider_slug: Type.String(),
      node_id: Nullable(Type.String()),
      reason: StringEnum(['matched', 'fallback', 'default'] as const),
      probe: Type.Boolean({ description: "This charge was the connector's half-open probe" }),
      approval_score: Nullable(Type.Number()),
      three_ds_requested: Type.Optional(
        Type.Boolean({
          description: 'The charge asked this provider to authenticate the card (3-D Secure); absent on older charges',
        }),
      ),
    }),
  ),
  skipped: Type.Array(
    StrictObject({
      connector_id: Type.String(),
      node_id: Nullable(Type.String()),
      reason: StringEnum([
        'unknown_connector',
        'inactive',
        'circuit_open',
        'test_mode_mismatch',
        'unsupported_payment_method',
        'unsupported_currency',
        'unsupported_card_brand',
        'three_ds_unsupported',
      ] as const),
    }),
  ),
  explored_connector_id: Nullable(Type.String()),
  decided_at: Nullable(Timestamp),
});

export const routingSettingsRoutes = [
  defineRoute({
    method: 'get',
    path: '/merchants/:merchant_id/routing-settings',
    summary: "The merchant's routing settings: which declines move a charge on to the next connector",
    tags: ['Routing settings'],
    auth: routingRead,
    params: MerchantParams,
    query: NoQuery,
    responses: { 200: RoutingSettingsObject },
    envelope: 'bare',
    async handler({ em, merchantId }) {
      return { status: 200, data: present(merchantId, await readRoutingSettings(em, merchantId)) };
    },
  }),
  defineRoute({
    method: 'put',
    path: '/merchants/:merchant_id/routing-settings',
    summary: "Replace the merchant's decline table (categories not sent keep today's default)",
    tags: ['Routing settings'],
    auth: routingWrite,
    params: MerchantParams,
    query: NoQuery,
    body: RoutingSettingsBody,
    responses: { 200: RoutingSettingsObject },
    envelope: 'bare',
    async handler({ em, merchantId, body, auth }) {
      const merchant = await em.findOne(MerchantSchema, { id: merchantId });
      if (!merchant) throw errors.notFound('No such merchant');
      const before = await readRoutingSettings(em, merchantId);
      const input = body;
      await em.transactional(async (tx) => {
        const next = {
          declineActions: { ...defaultDeclineActions(), ...input.decline_actions },
          codeActions: { ...(input.code_actions ?? {}) },
        };
        await writeRoutingSettings(tx, merchantId, next);
        recordActivity(tx, {
          organizationId: merchant.organizationId,
          merchantId,
          action: 'routing_settings.updated',
          actor: actorOf(auth),
          changes: diff(
            { decline_actions: before.declineActions, code_actions: before.codeActions },
            { decline_actions: next.declineActions, code_actions: next.codeActions },
          ),
        });
      });
      return { status: 200, data: present(merchantId, await readRoutingSettings(em, merchantId)) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/transactions/:transactionId/routing',
    summary:
      'How routing planned a charge: connectors in the order tried, those skipped and why (inactive, circuit_open …)',
    tags: ['Transactions'],
    auth: { keys: ['merchant', 'organization'] as const, scopes: ['transactions:read'] },
    params: TransactionParams,
    query: MerchantQuery,
    responses: { 200: RoutingExplanationObject },
    envelope: 'wrapped',
    async handler({ em, merchantId, params }) {
      const tx = await getTransaction(em, merchantId, params.transactionId);
      const decision = tx.routingDecision;
      return {
        status: 200,
        data: decision
          ? { transaction_id: tx.id, recorded: true, ...decision }
          : {
              transaction_id: tx.id,
              recorded: false,
              profile_id: null,
              profile_version: null,
              optimize: 'none',
              attempts: [],
              skipped: [],
              explored_connector_id: null,
              decided_at: null,
            },
      };
    },
  }),
];
