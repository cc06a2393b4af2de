/**
 * GET /merchant/customers: the Customers page's list, searched by part of the e-mail or the name (case-insensitive),
 * newest first. The API-key list matches an exact e-mail only; staff looking someone up type a fragment.
 */
import { Type } from '@sinclair/typebox';
import type { EntityManager } from '@mikro-orm/postgresql';
import { CustomerSchema } from '../../../db/entities';
import { defineRoute } from '../../http/define-route';
import type { DashboardRequirement } from '../../http/dashboard-auth';
import { offsetOf, pagination, type PageRequest } from '../../http/pagination';
import { PaginationQuery, StrictObject } from '../../http/schema';
import { CustomerSchema as CustomerObject } from '../customers/customers.schema';
import { presentCustomer } from '../customers/customers.presenter';

// As merchantDashboard in merchant-dashboard.routes.ts (which lists this route; importing it back would be a cycle).
const auth: DashboardRequirement = { dashboard: ['merchant'], tenant: 'merchant' };

const SearchCustomersQuery = StrictObject({
  ...PaginationQuery,
  q: Type.Optional(
    Type.String({ minLength: 1, maxLength: 254, description: 'Part of the e-mail or the name, any case' }),
  ),
});

/** `%` and `_` typed by a person are characters to find, not wildcards. */
const likePattern = (text: string) => `%${text.trim().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

async function searchCustomers(em: EntityManager, merchantId: string, query: PageRequest & { q?: string }) {
  const pattern = query.q?.trim() ? likePattern(query.q) : undefined;
  const where = pattern
    ? { merchantId, $or: [{ email: { $ilike: pattern } }, { name: { $ilike: pattern } }] }
    : { merchantId };
  return em.findAndCount(CustomerSchema, where, {
    orderBy: { createdAt: 'desc', id: 'desc' },
    limit: query.limit,
    offset: offsetOf(query),
  });
}

export const merchantDashboardCustomersRoute = defineRoute({
  method: 'get',
  path: '/merchant/customers',
  summary: "The merchant's customers, searched by part of the e-mail or name, newest first (the Customers page)",
  tags: ['Merchant Dashboard: customers'],
  auth,
  query: SearchCustomersQuery,
  responses: { 200: Type.Array(CustomerObject) },
  envelope: 'bare',
  pagination: 'flat',
  async handler({ em, merchantId, query }) {
    const [items, total] = await searchCustomers(em, merchantId, query);
    return { status: 200, data: items.map(presentCustomer), pagination: pagination(query, total) };
  },
});
