import { Type } from '@sinclair/typebox';
import { defineRoute } from '../../http/define-route';
import { pagination } from '../../http/pagination';
import {
  CreateProductFamilyBody,
  ListProductFamiliesQuery,
  MerchantQuery,
  ProductFamilyObject,
  ProductFamilyParams,
  UpdateProductFamilyBody,
} from './product-families.schema';
import { presentProductFamily } from './product-families.presenter';
import {
  createProductFamily,
  deleteProductFamily,
  getProductFamily,
  listProductFamilies,
  restoreProductFamily,
  updateProductFamily,
} from './product-families.service';

const tags = ['Product families'];
const keys = ['merchant', 'organization'] as const;
const read = { keys, scopes: ['products:read'] } as const;
const write = { keys, scopes: ['products:write'] } as const;

export const productFamilyRoutes = [
  defineRoute({
    method: 'post',
    path: '/product-families',
    summary: 'Create a product family',
    tags,
    auth: write,
    body: CreateProductFamilyBody,
    responses: { 201: ProductFamilyObject, 200: ProductFamilyObject },
    envelope: 'wrapped',
    links: [{ to: 'post /products', from: { 'body.product_family_id': 'id' } }],
    idempotency: 'optional',
    async handler({ em, merchantId, body }) {
      return { status: 201, data: presentProductFamily(await createProductFamily(em, merchantId, body)) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/product-families',
    summary: 'List live product families, newest first',
    tags,
    auth: read,
    query: ListProductFamiliesQuery,
    responses: { 200: Type.Array(ProductFamilyObject) },
    envelope: 'wrapped',
    pagination: 'nested',
    async handler({ em, merchantId, query }) {
      const { items, total } = await listProductFamilies(em, merchantId, query);
      return { status: 200, data: items.map(presentProductFamily), pagination: pagination(query, total) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/product-families/:productFamilyId',
    summary: 'Get a product family',
    tags,
    auth: read,
    params: ProductFamilyParams,
    query: MerchantQuery,
    responses: { 200: ProductFamilyObject },
    envelope: 'wrapped',
    async handler({ em, merchantId, params }) {
      return {
        status: 200,
        data: presentProductFamily(await getProductFamily(em, merchantId, params.productFamilyId)),
      };
    },
  }),
  defineRoute({
    method: 'patch',
    path: '/product-families/:productFamilyId',
    summary: 'Update a product family',
    tags,
    auth: write,
    params: ProductFamilyParams,
    query: MerchantQuery,
    body: UpdateProductFamilyBody,
    responses: { 200: ProductFamilyObject },
    envelope: 'wrapped',
    async handler({ em, merchantId, params, body }) {
      return {
        status: 200,
        data: presentProductFamily(await updateProductFamily(em, merchantId, params.productFamilyId, body)),
      };
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/product-families/:productFamilyId',
    summary: 'Soft-delete a product family; its slug and custom_plan_id become free',
    tags,
    auth: write,
    params: ProductFamilyParams,
    query: MerchantQuery,
    responses: { 204: null },
    envelope: 'wrapped',
    async handler({ em, merchantId, params }) {
      await deleteProductFamily(em, merchantId, params.productFamilyId);
      return { status: 204 };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/product-families/:productFamilyId/restore',
    summary: 'Restore a soft-deleted product family',
    tags,
    auth: write,
    params: ProductFamilyParams,
    query: MerchantQuery,
    responses: { 201: ProductFamilyObject },
    envelope: 'wrapped',
    async handler({ em, merchantId, params }) {
      return {
        status: 201,
        data: presentProductFamily(await restoreProductFamily(em, merchantId, params.productFamilyId)),
      };
    },
  }),
];
