/**
 * GET /merchant/activity: the merchant's activity record (who did what) for the Dashboard's Activity page, the same
 * records as GET /merchants/:id/activity. Every member reads it: it names actors by id and holds no secret.
 */
import { Type } from '@sinclair/typebox';
import { defineRoute } from '../../http/define-route';
import type { DashboardRequirement } from '../../http/dashboard-auth';
import { pagination } from '../../http/pagination';
import { ActivitySchema, PageQuery } from '../merchants/merchants.schema';
import { presentActivity } from '../merchants/merchants.presenter';
import { listActivity } from '../merchants/merchants.service';
import { organizationOfMerchant } from './merchant-dashboard.service';

// As merchantDashboard in merchant-dashboard.routes.ts (which lists this route; importing it back would be a cycle).
const auth: DashboardRequirement = { dashboard: ['merchant'], tenant: 'merchant' };

export const merchantDashboardActivityRoute = defineRoute({
  method: 'get',
  path: '/merchant/activity',
  summary: "The merchant's administrative activity record, newest first (the Activity page)",
  tags: ['Merchant Dashboard: activity'],
  auth,
  query: PageQuery,
  responses: { 200: Type.Array(ActivitySchema) },
  envelope: 'bare',
  pagination: 'flat',
  async handler({ em, merchantId, query }) {
    const { items, total } = await listActivity(em, await organizationOfMerchant(em, merchantId), merchantId, query);
    return { status: 200, data: items.map(presentActivity), pagination: pagination(query, total) };
  },
});
