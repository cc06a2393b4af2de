/**
 * What the merchant Dashboard routes need beyond the API-key services they reuse: the merchant's organization
 * and the signed-in person as the actor of activity records and manual webhook sends.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { TObject, TSchema } from '@sinclair/typebox';
import { MerchantSchema } from '../../../db/entities';
import type { Actor } from '../../../domain/merchants/merchants.activity';
import type { AnyRoute, HttpMethod } from '../../http/define-route';
import type { DashboardSession } from '../../http/dashboard-auth';

export const dashboardActor = (session: DashboardSession): Actor => ({ type: 'dashboard_user', id: session.userId });

export async function organizationOfMerchant(em: EntityManager, merchantId: string): Promise<string> {
  const merchant = await em.findOneOrFail(MerchantSchema, { id: merchantId }, { fields: ['organizationId'] });
  return merchant.organizationId;
}

/** The route declared for API keys at `method path`; a missing one fails at start-up, not on a request. */
export function routeAt(routes: readonly AnyRoute[], method: HttpMethod, path: string): AnyRoute {
  const route = routes.find((candidate) => candidate.method === method && candidate.path === path);
  if (!route) throw new Error(`No route ${method.toUpperCase()} ${path} to serve to the merchant Dashboard`);
  return route;
}

/**
 * The schema without merchant_id: a Dashboard caller names its merchant with x-merchant-id, so a merchant_id in
 * the path or query has no place (and, refused as unknown, cannot point anywhere else).
 */
export function withoutMerchantId(schema: TSchema | undefined): TSchema | undefined {
  const object = schema as TObject | undefined;
  if (!object?.properties || !('merchant_id' in object.properties)) return schema;
  const { merchant_id: _dropped, ...properties } = object.properties;
  const required = (object.required ?? []).filter((name) => name !== 'merchant_id');
  const { required: _old, ...rest } = object;
  return { ...rest, properties, ...(required.length > 0 ? { required } : {}) };
}
