/** The organization Dashboard's settings of the organization itself (x-organization-id): read by members, changed by owners. */
import type { DashboardRequirement } from '../../http/dashboard-auth';
import { defineRoute } from '../../http/define-route';
import { OrganizationSettingsObject, UpdateOrganizationSettingsBody } from './organization-settings.schema';
import { presentSettings, readSettings, updateSettings } from './organization-settings.service';

const tags = ['Organization Dashboard: settings'];
const auth: DashboardRequirement = { dashboard: ['organization'], tenant: 'organization' };

export const organizationSettingsRoutes = [
  defineRoute({
    method: 'get',
    path: '/org/settings',
    summary: "The organization's settings",
    tags,
    auth,
    responses: { 200: OrganizationSettingsObject },
    envelope: 'bare',
    async handler({ em, organizationId }) {
      return { status: 200, data: presentSettings(await readSettings(em, organizationId)) };
    },
  }),
  defineRoute({
    method: 'patch',
    path: '/org/settings',
    summary: "Change the organization's settings (owners only; recorded in each of its merchants' activity logs)",
    description:
      'test_connectors_enabled: in production, test-mode connectors can be created only while this is on ' +
      '(422 TEST_CONNECTORS_DISABLED otherwise). Switching it off leaves existing test-mode connectors as they are.',
    example: { test_connectors_enabled: true },
    tags,
    auth,
    body: UpdateOrganizationSettingsBody,
    responses: { 200: OrganizationSettingsObject },
    envelope: 'bare',
    async handler({ em, organizationId, session, body }) {
      return { status: 200, data: presentSettings(await updateSettings(em, organizationId, session.userId, body)) };
    },
  }),
];
