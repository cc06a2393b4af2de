/**
 * The integration document: the part of the API a merchant's own server and pages call, without the Dashboard's
 * endpoints (Dashboard sign-in, invitations, and every route a Dashboard access token calls — /merchant/*, /org/*,
 * /admin/*). It is what /docs renders and what a newcomer reads first; the full document (GET /api/v1/openapi.json)
 * stays the contract of everything, the Dashboard web app's types included.
 */
import { isDashboardAuth, type AnyRoute } from './define-route';
import { buildOpenApi } from './openapi';

/** Tags whose routes serve people signing in to the Dashboard, not an integration. */
const DASHBOARD_TAGS = new Set(['Dashboard sign-in', 'Invitations']);

export function isIntegrationRoute(route: AnyRoute): boolean {
  if (isDashboardAuth(route.auth)) return false;
  return !route.tags.some((tag) => DASHBOARD_TAGS.has(tag));
}

const INTEGRATION_INTRO = [
  'The integration API: what a merchant server (secret key) and its pages (public key, the browser SDK) call. The Dashboard has its own endpoints, in the full document at `/api/v1/openapi.json`.',
  'Guides walk through the common tasks step by step: accept a payment with the hosted checkout, save a card and charge it later, pix, subscriptions with a test clock, webhooks, going live (docs/guides/ in the repository).',
].join('\n\n');

export function buildIntegrationOpenApi(
  routes: readonly AnyRoute[],
  prefix: string,
  serverUrl?: string,
): Record<string, unknown> {
  const document = buildOpenApi(routes.filter(isIntegrationRoute), prefix, serverUrl);
  const info = document.info as { title: string; description: string };
  const components = document.components as { securitySchemes: Record<string, unknown> };
  const { dashboardToken: _dashboardOnly, ...securitySchemes } = components.securitySchemes;
  return {
    ...document,
    components: { ...components, securitySchemes },
    info: { ...info, title: 'Switchyard integration API', description: `${INTEGRATION_INTRO}\n\n${info.description}` },
  };
}
