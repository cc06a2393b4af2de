/** Orders (Document 3): read-only; created and moved by the charge workflow (domain/transactions/transactions.transitions.ts). */
import { Type } from '@sinclair/typebox';
import type { FilterQuery } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  ORDER_STATUSES,
  ORDER_TYPES,
  OrderItemSchema,
  OrderSchema,
  OrderStatusHistorySchema,
  type Order,
  type OrderItem,
  type OrderStatusHistory,
  type ActorSnapshot,
} from '../../../db/entities';
import { actorsOfHistory } from '../transactions/operation-actors.service';
import { defineRoute } from '../../http/define-route';
import { errors } from '../../../domain/platform/errors';
import { offsetOf, pagination } from '../../http/pagination';
import {
  Currency,
  DateRangeQuery,
  Id,
  MerchantIdField,
  Money,
  MultiEnum,
  Nullable,
  PaginationQuery,
  StrictObject,
  StringEnum,
  Timestamp,
} from '../../http/schema';

const ListOrdersQuery = StrictObject({
  ...PaginationQuery,
  ...DateRangeQuery,
  merchant_id: MerchantIdField,
  status: Type.Optional(MultiEnum(ORDER_STATUSES)),
  customer_id: Type.Optional(Id('cust')),
  external_order_id: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
  order_type: Type.Optional(MultiEnum(ORDER_TYPES)),
  currency: Type.Optional(Currency),
});

const HeaderFields = {
  id: Type.String(),
  merchant_id: Type.String(),
  organization_id: Type.String(),
  customer_id: Nullable(Type.String()),
  external_order_id: Nullable(Type.String()),
  checkout_session_id: Nullable(Type.String()),
  order_type: StringEnum(ORDER_TYPES),
  recurrence: StringEnum(['none', 'initial', 'subsequent', 'unscheduled'] as const),
  total_amount: Money('The whole order: the sum of its items'),
  currency: Type.String(),
  status: StringEnum(ORDER_STATUSES),
  metadata: Nullable(Type.Record(Type.String(), Type.Unknown())),
  created_at: Timestamp,
  updated_at: Timestamp,
};
const OrderHeader = StrictObject(HeaderFields);
const OrderItemOut = StrictObject({
  id: Type.String(),
  product_id: Type.String(),
  offer_id: Type.String(),
  product_name: Type.String(),
  offer_name: Type.String(),
  billing_cycle: Nullable(Type.String()),
  cycle_limit: Nullable(Type.Integer()),
  is_first_charge: Type.Boolean(),
  quantity: Type.Integer(),
  unit_amount: Money('The price of one unit'),
  total_amount: Money('unit_amount times quantity'),
  currency: Type.String(),
  installments: Nullable(Type.Integer()),
  created_at: Timestamp,
});
const HistoryOut = StrictObject({
  from_status: Nullable(Type.String()),
  to_status: Type.String(),
  triggered_by: Type.String(),
  actor: Nullable(
    StrictObject(
      {
        id: Type.String(),
        type: Type.String({ description: 'api_key or merchant_user' }),
        name: Nullable(Type.String()),
        email: Nullable(Type.String()),
      },
      {
        description:
          'Who asked for the capture, void or refund behind this move (an API key, or a Dashboard user as they were then); null for moves nobody asked for (the charge itself, provider notifications, expiry)',
      },
    ),
  ),
  created_at: Timestamp,
});
const OrderDetail = StrictObject({
  ...HeaderFields,
  items: Type.Array(OrderItemOut),
  status_history: Type.Array(HistoryOut),
});

export function presentOrder(order: Order) {
  return {
    id: order.id,
    merchant_id: order.merchantId,
    organization_id: order.organizationId,
    customer_id: order.customerId,
    external_order_id: order.externalOrderId,
    checkout_session_id: order.checkoutSessionId,
    order_type: order.orderType,
    recurrence: order.recurrence,
    total_amount: order.totalAmount,
    currency: order.currency,
    status: order.status,
    metadata: order.metadata,
    created_at: order.createdAt.toISOString(),
    updated_at: order.updatedAt.toISOString(),
  };
}

const presentItem = (item: OrderItem) => ({
  id: item.id,
  product_id: item.productId,
  offer_id: item.offerId,
  product_name: item.productName,
  offer_name: item.offerName,
  billing_cycle: item.billingCycle,
  cycle_limit: item.cycleLimit,
  is_first_charge: item.isFirstCharge,
  quantity: item.quantity,
  unit_amount: item.unitAmount,
  total_amount: item.totalAmount,
  currency: item.currency,
  installments: item.installments,
  created_at: item.createdAt.toISOString(),
});

const presentHistory = (entry: OrderStatusHistory, actors: Map<string, ActorSnapshot>) => ({
  from_status: entry.fromStatus,
  to_status: entry.toStatus,
  triggered_by: entry.triggeredBy,
  actor: actors.get(entry.transitionKey) ?? null,
  created_at: entry.createdAt.toISOString(),
});

type ListQuery = typeof ListOrdersQuery.static;

async function listOrders(em: EntityManager, merchantId: string, filter: ListQuery) {
  if (filter.date_from && filter.date_to && Date.parse(filter.date_from) > Date.parse(filter.date_to)) {
    throw errors.invalidValue('date_from', 'must not be after date_to');
  }
  const where: FilterQuery<Order> = { merchantId };
  if (filter.status) Object.assign(where, { status: { $in: filter.status } });
  if (filter.order_type) Object.assign(where, { orderType: { $in: filter.order_type } });
  if (filter.customer_id) Object.assign(where, { customerId: filter.customer_id });
  if (filter.external_order_id) Object.assign(where, { externalOrderId: filter.external_order_id });
  if (filter.currency) Object.assign(where, { currency: filter.currency.toUpperCase() });
  const createdAt: Record<string, Date> = {};
  if (filter.date_from) createdAt.$gte = new Date(filter.date_from);
  if (filter.date_to) createdAt.$lte = new Date(filter.date_to);
  if (Object.keys(createdAt).length) Object.assign(where, { createdAt });
  return em.findAndCount(OrderSchema, where, {
    orderBy: { createdAt: 'desc', id: 'desc' },
    limit: filter.limit,
    offset: offsetOf(filter),
  });
}

const tags = ['Orders'];
const keys = ['merchant', 'organization'] as const;

export const orderRoutes = [
  defineRoute({
    method: 'get',
    path: '/orders',
    summary: 'List orders (headers only), newest first',
    tags,
    auth: { keys, scopes: ['orders:read'] },
    query: ListOrdersQuery,
    responses: { 200: Type.Array(OrderHeader) },
    envelope: 'wrapped',
    pagination: 'nested',
    async handler({ em, merchantId, query }) {
      const [items, total] = await listOrders(em, merchantId, query);
      return { status: 200, data: items.map(presentOrder), pagination: pagination(query, total) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/orders/:orderId',
    summary: 'Get an order with its items and status history',
    tags,
    auth: { keys, scopes: ['orders:read'] },
    params: StrictObject({ orderId: Id('ord') }),
    query: StrictObject({ merchant_id: MerchantIdField }),
    responses: { 200: OrderDetail },
    envelope: 'wrapped',
    async handler({ em, merchantId, params }) {
      const order = await em.findOne(OrderSchema, { id: params.orderId, merchantId });
      if (!order) throw errors.notFound('No such order', 'ORDER_NOT_FOUND');
      const items = await em.find(OrderItemSchema, { orderId: order.id }, { orderBy: { createdAt: 'asc', id: 'asc' } });
      const history = await em.find(OrderStatusHistorySchema, { orderId: order.id }, { orderBy: { seq: 'asc' } });
      const actors = await actorsOfHistory(
        em,
        merchantId,
        history.map((entry) => entry.transitionKey),
      );
      return {
        status: 200,
        data: {
          ...presentOrder(order),
          items: items.map(presentItem),
          status_history: history.map((entry) => presentHistory(entry, actors)),
        },
      };
    },
  }),
];
