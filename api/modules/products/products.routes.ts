import { Type } from '@sinclair/typebox';
import { defineRoute } from '../../http/define-route';
import { pagination } from '../../http/pagination';
import { Nullable } from '../../http/schema';
import { OfferObject } from '../offers/offers.schema';
import { presentOffer } from '../offers/offers.presenter';
import {
  CreateProductBody,
  ListProductsQuery,
  MerchantQuery,
  ProductObject,
  ProductParams,
  UpdateProductBody,
} from './products.schema';
import { presentProduct } from './products.presenter';
import {
  createProduct,
  deleteProduct,
  getDefaultOffer,
  getProduct,
  listProducts,
  restoreProduct,
  setProductStatus,
  updateProduct,
} from './products.service';

const tags = ['Products'];
const keys = ['merchant', 'organization'] as const;
const read = { keys, scopes: ['products:read'] } as const;
const write = { keys, scopes: ['products:write'] } as const;

export const productRoutes = [
  defineRoute({
    method: 'post',
    path: '/products',
    summary: 'Create a product (tier_order is required inside a family and unique there)',
    tags,
    auth: write,
    body: CreateProductBody,
    responses: { 201: ProductObject, 200: ProductObject },
    envelope: 'wrapped',
    links: [{ to: 'post /offers', from: { 'body.product_id': 'id' } }],
    idempotency: 'optional',
    async handler({ em, merchantId, body }) {
      return { status: 201, data: presentProduct(await createProduct(em, merchantId, body)) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/products',
    summary: 'List live products, newest first; filters combine with AND',
    tags,
    auth: read,
    query: ListProductsQuery,
    responses: { 200: Type.Array(ProductObject) },
    envelope: 'wrapped',
    pagination: 'nested',
    async handler({ em, merchantId, query }) {
      const { items, total } = await listProducts(em, merchantId, query);
      return { status: 200, data: items.map(presentProduct), pagination: pagination(query, total) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/products/:productId',
    summary: 'Get a product',
    tags,
    auth: read,
    params: ProductParams,
    query: MerchantQuery,
    responses: { 200: ProductObject },
    envelope: 'wrapped',
    async handler({ em, merchantId, params }) {
      return { status: 200, data: presentProduct(await getProduct(em, merchantId, params.productId)) };
    },
  }),
  defineRoute({
    method: 'patch',
    path: '/products/:productId',
    summary: 'Update a product (metadata is replaced, not merged)',
    tags,
    auth: write,
    params: ProductParams,
    query: MerchantQuery,
    body: UpdateProductBody,
    responses: { 200: ProductObject },
    envelope: 'wrapped',
    async handler({ em, merchantId, params, body }) {
      return { status: 200, data: presentProduct(await updateProduct(em, merchantId, params.productId, body)) };
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/products/:productId',
    summary: 'Soft-delete a product',
    tags,
    auth: write,
    params: ProductParams,
    query: MerchantQuery,
    responses: { 204: null },
    envelope: 'wrapped',
    async handler({ em, merchantId, params }) {
      await deleteProduct(em, merchantId, params.productId);
      return { status: 204 };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/products/:productId/restore',
    summary: 'Restore a soft-deleted product with its previous attributes',
    tags,
    auth: write,
    params: ProductParams,
    query: MerchantQuery,
    responses: { 201: ProductObject },
    envelope: 'wrapped',
    async handler({ em, merchantId, params }) {
      return { status: 201, data: presentProduct(await restoreProduct(em, merchantId, params.productId)) };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/products/:productId/archive',
    summary: 'Archive a product (kept in catalog and history, not offered for new purchases)',
    tags,
    auth: write,
    params: ProductParams,
    query: MerchantQuery,
    responses: { 201: ProductObject },
    envelope: 'wrapped',
    async handler({ em, merchantId, params }) {
      return {
        status: 201,
        data: presentProduct(await setProductStatus(em, merchantId, params.productId, 'archived')),
      };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/products/:productId/unarchive',
    summary: 'Make an archived product active again',
    tags,
    auth: write,
    params: ProductParams,
    query: MerchantQuery,
    responses: { 201: ProductObject },
    envelope: 'wrapped',
    async handler({ em, merchantId, params }) {
      return { status: 201, data: presentProduct(await setProductStatus(em, merchantId, params.productId, 'active')) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/products/:productId/default-offer',
    summary: "The product's default offer with its prices (data: null when it has none)",
    tags,
    auth: read,
    params: ProductParams,
    query: MerchantQuery,
    responses: { 200: Nullable(OfferObject) },
    envelope: 'wrapped',
    async handler({ em, merchantId, params }) {
      const found = await getDefaultOffer(em, merchantId, params.productId);
      return { status: 200, data: found ? presentOffer(found.offer, found.prices) : null };
    },
  }),
];
