import { Type } from '@sinclair/typebox';
import { defineRoute } from '../../http/define-route';
import { errors } from '../../../domain/platform/errors';
import { pagination } from '../../http/pagination';
import {
  CreateOfferPriceBody,
  ListOfferPricesQuery,
  MerchantQuery,
  OfferPriceObject,
  OfferPriceParams,
  OfferPricesParams,
  UpdateOfferPriceBody,
} from './offer-prices.schema';
import { presentOfferPrice } from './offer-prices.presenter';
import {
  createOfferPrice,
  deleteOfferPrice,
  getOfferPrice,
  listOfferPrices,
  restoreOfferPrice,
  updateOfferPrice,
} from './offer-prices.service';

const tags = ['Offer prices'];
const keys = ['merchant', 'organization'] as const;
const write = { keys, scopes: ['offers:write'] } as const;
const read = { keys, scopes: ['offers:read'] } as const;

export const offerPriceRoutes = [
  defineRoute({
    method: 'post',
    path: '/offers/:offerId/prices',
    summary: 'Add a price (one currency) to an offer',
    tags,
    auth: write,
    params: OfferPricesParams,
    query: MerchantQuery,
    body: CreateOfferPriceBody,
    responses: { 201: OfferPriceObject },
    envelope: 'wrapped',
    links: [
      // Prices are created under their offer and addressed on their own.
      { to: 'get /offer-prices/:id', from: { id: 'id' } },
      { to: 'patch /offer-prices/:id', from: { id: 'id' } },
      { to: 'delete /offer-prices/:id', from: { id: 'id' } },
      { to: 'post /offer-prices/:id/restore', from: { id: 'id' } },
    ],
    idempotency: 'optional',
    async handler({ em, merchantId, params, body }) {
      // The query wins when both are sent (route-runner); a body naming another merchant is a contradiction.
      if (body.merchant_id !== undefined && body.merchant_id !== merchantId) {
        throw errors.invalidValue('merchant_id', 'must match the merchant_id query parameter');
      }
      const price = await createOfferPrice(em, merchantId, params.offerId, body);
      return { status: 201, data: presentOfferPrice(price) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/offers/:offerId/prices',
    summary: "List an offer's prices, default first then by currency",
    tags,
    auth: read,
    params: OfferPricesParams,
    query: ListOfferPricesQuery,
    responses: { 200: Type.Array(OfferPriceObject) },
    envelope: 'wrapped',
    pagination: 'nested',
    async handler({ em, merchantId, params, query }) {
      const { items, total } = await listOfferPrices(em, merchantId, params.offerId, query);
      return { status: 200, data: items.map(presentOfferPrice), pagination: pagination(query, total) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/offer-prices/:id',
    summary: 'Get an offer price',
    tags,
    auth: read,
    params: OfferPriceParams,
    query: MerchantQuery,
    responses: { 200: OfferPriceObject },
    envelope: 'wrapped',
    async handler({ em, merchantId, params }) {
      return { status: 200, data: presentOfferPrice(await getOfferPrice(em, merchantId, params.id)) };
    },
  }),
  defineRoute({
    method: 'patch',
    path: '/offer-prices/:id',
    summary: 'Update an offer price (future charges only)',
    tags,
    auth: write,
    params: OfferPriceParams,
    query: MerchantQuery,
    body: UpdateOfferPriceBody,
    responses: { 200: OfferPriceObject },
    envelope: 'wrapped',
    async handler({ em, merchantId, params, body }) {
      return { status: 200, data: presentOfferPrice(await updateOfferPrice(em, merchantId, params.id, body)) };
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/offer-prices/:id',
    summary: 'Soft-delete an offer price, freeing its currency and default slots',
    tags,
    auth: write,
    params: OfferPriceParams,
    query: MerchantQuery,
    responses: { 204: null },
    envelope: 'wrapped',
    async handler({ em, merchantId, params }) {
      await deleteOfferPrice(em, merchantId, params.id);
      return { status: 204 };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/offer-prices/:id/restore',
    summary: 'Restore a soft-deleted offer price',
    tags,
    auth: write,
    params: OfferPriceParams,
    query: MerchantQuery,
    responses: { 201: OfferPriceObject },
    envelope: 'wrapped',
    async handler({ em, merchantId, params }) {
      return { status: 201, data: presentOfferPrice(await restoreOfferPrice(em, merchantId, params.id)) };
    },
  }),
];
