import { Type } from '@sinclair/typebox';
import { defineRoute } from '../../http/define-route';
import { pagination } from '../../http/pagination';
import {
  CreateOfferTransitionBody,
  EffectiveBehaviorObject,
  EffectiveBehaviorQuery,
  ListOfferTransitionsQuery,
  MerchantQuery,
  OfferTransitionObject,
  OfferTransitionParams,
  UpdateOfferTransitionBody,
} from './offer-transitions.schema';
import { presentEffectiveBehavior, presentOfferTransition } from './offer-transitions.presenter';
import {
  createOfferTransition,
  deleteOfferTransition,
  getOfferTransition,
  listOfferTransitions,
  resolveEffectiveBehavior,
  updateOfferTransition,
} from './offer-transitions.service';

const tags = ['Offer transitions'];
const keys = ['merchant', 'organization'] as const;
const write = { keys, scopes: ['offers:write'] } as const;
const read = { keys, scopes: ['offers:read'] } as const;

export const offerTransitionRoutes = [
  // Declared before /offer-transitions/:id so the literal path is matched first.
  defineRoute({
    method: 'get',
    path: '/offer-transitions/effective-behavior',
    summary: 'The change-charge behaviour that applies when a subscription moves from one offer to another',
    tags,
    auth: read,
    query: EffectiveBehaviorQuery,
    responses: { 200: EffectiveBehaviorObject },
    envelope: 'wrapped',
    async handler({ em, merchantId, query }) {
      const result = await resolveEffectiveBehavior(em, merchantId, query.from_offer_id, query.to_offer_id);
      return { status: 200, data: presentEffectiveBehavior(result) };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/offer-transitions',
    summary: 'Create the transition rule for a pair of offers',
    tags,
    auth: write,
    body: CreateOfferTransitionBody,
    responses: { 201: OfferTransitionObject },
    envelope: 'wrapped',
    idempotency: 'optional',
    async handler({ em, merchantId, body }) {
      return { status: 201, data: presentOfferTransition(await createOfferTransition(em, merchantId, body)) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/offer-transitions',
    summary: 'List offer transitions, newest first',
    tags,
    auth: read,
    query: ListOfferTransitionsQuery,
    responses: { 200: Type.Array(OfferTransitionObject) },
    envelope: 'wrapped',
    pagination: 'nested',
    async handler({ em, merchantId, query }) {
      const { items, total } = await listOfferTransitions(em, merchantId, query);
      return { status: 200, data: items.map(presentOfferTransition), pagination: pagination(query, total) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/offer-transitions/:id',
    summary: 'Get an offer transition',
    tags,
    auth: read,
    params: OfferTransitionParams,
    query: MerchantQuery,
    responses: { 200: OfferTransitionObject },
    envelope: 'wrapped',
    async handler({ em, merchantId, params }) {
      return { status: 200, data: presentOfferTransition(await getOfferTransition(em, merchantId, params.id)) };
    },
  }),
  defineRoute({
    method: 'patch',
    path: '/offer-transitions/:id',
    summary: 'Update change_charge_behavior or is_active (the pair is immutable)',
    tags,
    auth: write,
    params: OfferTransitionParams,
    query: MerchantQuery,
    body: UpdateOfferTransitionBody,
    responses: { 200: OfferTransitionObject },
    envelope: 'wrapped',
    async handler({ em, merchantId, params, body }) {
      return {
        status: 200,
        data: presentOfferTransition(await updateOfferTransition(em, merchantId, params.id, body)),
      };
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/offer-transitions/:id',
    summary: 'Delete an offer transition (moves between the pair then use the family default)',
    tags,
    auth: write,
    params: OfferTransitionParams,
    query: MerchantQuery,
    responses: { 204: null },
    envelope: 'wrapped',
    async handler({ em, merchantId, params }) {
      await deleteOfferTransition(em, merchantId, params.id);
      return { status: 204 };
    },
  }),
];
