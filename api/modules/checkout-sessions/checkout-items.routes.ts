/** Line-item management before payment (paths and shapes are ours: see docs/api-decisions.md). */
import { defineRoute } from '../../http/define-route';
import {
  AddItemBody,
  CheckoutItemSchema,
  ItemParams,
  MerchantOnlyQuery,
  SessionParams,
  UpdateItemBody,
} from './checkout-sessions.schema';
import { presentItem } from './checkout-sessions.presenter';
import { addCheckoutItem, removeCheckoutItem, updateCheckoutItem } from './checkout-items.service';

const tags = ['Checkout sessions'];
const write = { keys: ['merchant', 'organization'], scopes: ['checkout:write'] } as const;

export const checkoutItemRoutes = [
  defineRoute({
    method: 'post',
    path: '/checkout-sessions/:id/items',
    summary: "Add a line item priced now in the session's currency",
    tags,
    auth: write,
    params: SessionParams,
    body: AddItemBody,
    responses: { 201: CheckoutItemSchema, 200: CheckoutItemSchema },
    envelope: 'wrapped',
    // 422 business_rule_error: the checkout session is no longer open.
    errors: [422],
    idempotency: 'optional',
    async handler({ em, merchantId, params, body }) {
      return { status: 201, data: presentItem(await addCheckoutItem(em, merchantId, params.id, body, new Date())) };
    },
  }),
  defineRoute({
    method: 'patch',
    path: '/checkout-sessions/:id/items/:itemId',
    summary: 'Change the quantity or installments of a line item (its price snapshot stays)',
    tags,
    auth: write,
    params: ItemParams,
    query: MerchantOnlyQuery,
    body: UpdateItemBody,
    responses: { 200: CheckoutItemSchema },
    envelope: 'wrapped',
    // 422 business_rule_error: the checkout session is no longer open.
    errors: [422],
    async handler({ em, merchantId, params, body }) {
      const item = await updateCheckoutItem(em, merchantId, params.id, params.itemId, body, new Date());
      return { status: 200, data: presentItem(item) };
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/checkout-sessions/:id/items/:itemId',
    summary: 'Remove a line item (never the last one)',
    tags,
    auth: write,
    params: ItemParams,
    query: MerchantOnlyQuery,
    responses: { 204: null },
    envelope: 'wrapped',
    // 422 business_rule_error: the checkout session is no longer open.
    errors: [422],
    async handler({ em, merchantId, params }) {
      await removeCheckoutItem(em, merchantId, params.id, params.itemId, new Date());
      return { status: 204 };
    },
  }),
];
