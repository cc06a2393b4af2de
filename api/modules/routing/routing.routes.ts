/** Every routing route: profiles, their node trees, simulate and checkout methods (beyond the spec), for API keys and the merchant Dashboard. */
import { defineRoute } from '../../http/define-route';
import { NoQuery, ProfileParams } from './routing-profiles.schema';
import { routingProfileRoutes, routingRead } from './routing-profiles.routes';
import { routingNodeRoutes } from './routing-nodes.routes';
import { SimulateBody, SimulationObject, simulate } from './routing-simulate.service';
import { routingSettingsRoutes } from './routing-settings.routes';
import { checkoutMethodsRoute, dashboardTwin, routingDashboardRoutes } from './routing-dashboard.routes';

const simulateRoute = defineRoute({
  method: 'post',
  path: '/merchants/:merchant_id/routing-profiles/:profile_id/simulate',
  summary:
    'The attempt plan the routing engine would produce for a charge; works on inactive profiles and changes nothing',
  tags: ['Routing profiles'],
  auth: routingRead,
  params: ProfileParams,
  query: NoQuery,
  body: SimulateBody,
  responses: { 200: SimulationObject },
  envelope: 'bare',
  changesNothing: true,
  async handler({ em, merchantId, params, body }) {
    return { status: 200, data: await simulate(em, merchantId, params.profile_id, body) };
  },
});

const apiRoutes = [...routingProfileRoutes, ...routingNodeRoutes, simulateRoute, checkoutMethodsRoute];

/** The API-key routes, then the same for the merchant Dashboard's routing page (/merchant/routing-profiles/…). */
export const routingRoutes = [
  ...apiRoutes,
  ...routingSettingsRoutes,
  ...routingDashboardRoutes(apiRoutes),
  dashboardTwin(checkoutMethodsRoute),
];
