import { Type } from '@sinclair/typebox';
import { defineRoute } from '../../http/define-route';
import { pagination } from '../../http/pagination';
import { Nullable } from '../../http/schema';
import { OfferPriceObject } from '../offer-prices/offer-prices.schema';
import { presentOfferPrice } from '../offer-prices/offer-prices.presenter';
import {
  CreateOfferBody,
  ListOffersQuery,
  MerchantQuery,
  OfferObject,
  OfferParams,
  OfferSummaryObject,
  UpdateOfferBody,
} from './offers.schema';
import { presentOffer } from './offers.presenter';
import { signalBillingResumed } from '../../temporal/subscriptions';
import { liveSubscriptionIds } from '../subscriptions/subscriptions.service';
import {
  createOffer,
  deleteOffer,
  getDefaultPrice,
  getOfferWithPrices,
  listOffers,
  restoreOffer,
  updateOffer,
} from './offers.service';

const tags = ['Offers'];
const keys = ['merchant', 'organization'] as const;
const write = { keys, scopes: ['offers:write'] } as const;
const read = { keys, scopes: ['offers:read'] } as const;

export const offerRoutes = [
  defineRoute({
    method: 'post',
    path: '/offers',
    summary: 'Create an offer with its prices',
    tags,
    auth: write,
    body: CreateOfferBody,
    responses: { 201: OfferObject },
    envelope: 'wrapped',
    links: [
      { to: 'get /offer-prices/:id', from: { id: 'prices/0/id' } },
      { to: 'patch /offer-prices/:id', from: { id: 'prices/0/id' } },
      { to: 'post /checkout-sessions', from: { 'body.offer_id': 'id' } },
      { to: 'post /offer-transitions', from: { 'body.from_offer_id': 'id' } },
    ],
    idempotency: 'optional',
    async handler({ em, merchantId, body }) {
      const { offer, prices } = await createOffer(em, merchantId, body);
      return { status: 201, data: presentOffer(offer, prices) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/offers',
    summary: 'List offers (without prices), newest first',
    tags,
    auth: read,
    query: ListOffersQuery,
    responses: { 200: Type.Array(OfferSummaryObject) },
    envelope: 'wrapped',
    pagination: 'nested',
    async handler({ em, merchantId, query }) {
      const { items, total } = await listOffers(em, merchantId, query);
      return {
        status: 200,
        data: items.map((offer) => presentOffer(offer, undefined)),
        pagination: pagination(query, total),
      };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/offers/:id',
    summary: 'Get an offer with its prices',
    tags,
    auth: read,
    params: OfferParams,
    query: MerchantQuery,
    responses: { 200: OfferObject },
    envelope: 'wrapped',
    async handler({ em, merchantId, params }) {
      const { offer, prices } = await getOfferWithPrices(em, merchantId, params.id);
      return { status: 200, data: presentOffer(offer, prices) };
    },
  }),
  defineRoute({
    method: 'patch',
    path: '/offers/:id',
    summary: 'Update offer-level fields (prices have their own endpoints)',
    tags,
    auth: write,
    params: OfferParams,
    query: MerchantQuery,
    body: UpdateOfferBody,
    responses: { 200: OfferObject },
    envelope: 'wrapped',
    async handler({ em, merchantId, params, body, deps }) {
      const { offer, prices } = await updateOffer(em, merchantId, params.id, body);
      if (body.status === 'active')
        await signalBillingResumed(deps.temporal.client, await liveSubscriptionIds(em, merchantId, offer.id));
      return { status: 200, data: presentOffer(offer, prices) };
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/offers/:id',
    summary: 'Soft-delete an offer and its prices',
    tags,
    auth: write,
    params: OfferParams,
    query: MerchantQuery,
    responses: { 204: null },
    envelope: 'wrapped',
    async handler({ em, merchantId, params }) {
      await deleteOffer(em, merchantId, params.id);
      return { status: 204 };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/offers/:id/restore',
    summary: 'Restore a soft-deleted offer with the prices its delete removed',
    tags,
    auth: write,
    params: OfferParams,
    query: MerchantQuery,
    responses: { 201: OfferObject },
    envelope: 'wrapped',
    async handler({ em, merchantId, params, deps }) {
      const { offer, prices } = await restoreOffer(em, merchantId, params.id);
      // Its subscriptions, held while the offer was gone, look again.
      await signalBillingResumed(deps.temporal.client, await liveSubscriptionIds(em, merchantId, offer.id));
      return { status: 201, data: presentOffer(offer, prices) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/offers/:id/default-price',
    summary: "The offer's default price (data null when it has none)",
    tags,
    auth: read,
    params: OfferParams,
    query: MerchantQuery,
    responses: { 200: Nullable(OfferPriceObject) },
    envelope: 'wrapped',
    async handler({ em, merchantId, params }) {
      const price = await getDefaultPrice(em, merchantId, params.id);
      return { status: 200, data: price ? presentOfferPrice(price) : null };
    },
  }),
];
