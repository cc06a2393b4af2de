import { EntitySchema } from '@mikro-orm/core';
import { createdAt, updatedAt } from './timestamps';

export const ROUTING_PAYMENT_METHODS = ['credit_card', 'debit_card', 'pix', 'boleto', 'wallet', '*'] as const;
export type RoutingPaymentMethod = (typeof ROUTING_PAYMENT_METHODS)[number];

export interface RoutingProfile {
  id: string;
  merchantId: string;
  name: string;
  /** At most one active profile per (merchant, payment_method). */
  isActive: boolean;
  /** Bumped on every change to the profile or its nodes. */
  version: number;
  paymentMethod: RoutingPaymentMethod;
  /** Never null: used when no node matches, and last in every fallback chain. */
  defaultMerchantConnectorId: string;
  /** 'approval_rate': reorder the plan by recent approval rate; 'none': the rules' order. */
  optimize: 'none' | 'approval_rate';
  createdAt: Date;
  updatedAt: Date;
}

export const RoutingProfileSchema = new EntitySchema<RoutingProfile>({
  name: 'RoutingProfile',
  tableName: 'routing_profiles',
  properties: {
    id: { type: 'string', primary: true },
    merchantId: { type: 'string' },
    name: { type: 'string' },
    isActive: { type: 'boolean', default: false },
    version: { type: 'integer', default: 1 },
    paymentMethod: { type: 'string', default: '*' },
    defaultMerchantConnectorId: { type: 'string' },
    optimize: { type: 'string', default: 'none' },
    createdAt,
    updatedAt,
  },
});

export const CONDITION_FIELDS = [
  'currency',
  'amount',
  'card_brand',
  'bin_country',
  'is_recurring',
  'math/random',
  'installments',
] as const;
export const CONDITION_OPERATORS = ['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'in', 'not_in', 'regex'] as const;
export const REQUIRE_3DS = ['never', 'if_supported', 'always'] as const;

export interface RoutingNode {
  id: string;
  routingProfileId: string;
  /** null for a root node. */
  parentNodeId: string | null;
  /** Which branch of the parent condition; null for a root node. */
  branch: 'then' | 'else' | null;
  /** 0-based among siblings (same parent and branch). */
  position: number;
  nodeType: 'condition' | 'action';
  conditionField: (typeof CONDITION_FIELDS)[number] | null;
  conditionOperator: (typeof CONDITION_OPERATORS)[number] | null;
  conditionValue: unknown;
  /** Action nodes only. */
  merchantConnectorId: string | null;
  require3ds: (typeof REQUIRE_3DS)[number];
  isActive: boolean;
  createdAt: Date;
  updatedAt: Date;
}

export const RoutingNodeSchema = new EntitySchema<RoutingNode>({
  name: 'RoutingNode',
  tableName: 'routing_nodes',
  properties: {
    id: { type: 'string', primary: true },
    routingProfileId: { type: 'string' },
    parentNodeId: { type: 'string', nullable: true },
    branch: { type: 'string', nullable: true },
    position: { type: 'integer' },
    nodeType: { type: 'string' },
    conditionField: { type: 'string', nullable: true },
    conditionOperator: { type: 'string', nullable: true },
    conditionValue: { type: 'json', nullable: true },
    merchantConnectorId: { type: 'string', nullable: true },
    require3ds: { type: 'string', fieldName: 'require_3ds', default: 'never' },
    isActive: { type: 'boolean', default: true },
    createdAt,
    updatedAt,
  },
});
