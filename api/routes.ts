/** Every API route, in the order they appear in the OpenAPI document. */
import type { AnyRoute } from './http/define-route';
import { healthRoutes } from './modules/health/health.routes';
import { authRoutes } from './modules/auth/auth.routes';
import { invitationRoutes } from './modules/invitations/invitations.routes';
import { customerRoutes } from './modules/customers/customers.routes';
import { productFamilyRoutes } from './modules/product-families/product-families.routes';
import { productRoutes } from './modules/products/products.routes';
import { offerRoutes } from './modules/offers/offers.routes';
import { offerPriceRoutes } from './modules/offer-prices/offer-prices.routes';
import { offerTransitionRoutes } from './modules/offer-transitions/offer-transitions.routes';
import { checkoutSessionRoutes } from './modules/checkout-sessions/checkout-sessions.routes';
import { merchantRoutes } from './modules/merchants/merchants.routes';
import { memberRoutes } from './modules/merchants/members.routes';
import { connectorRoutes } from './modules/connectors/connectors.routes';
import { orgConnectorRoutes } from './modules/connectors/org-connectors.routes';
import { organizationSettingsRoutes } from './modules/organizations/organization-settings.routes';
import { paymentProviderRoutes } from './modules/payment-providers/payment-providers.routes';
import { routingRoutes } from './modules/routing/routing.routes';
import { browserSessionRoutes } from './modules/browser-sessions/browser-sessions.routes';
import { tokenRoutes } from './modules/tokens/tokens.routes';
import { enrolmentTokenRoutes } from './modules/tokens/enrolment-tokens.routes';
import { paymentInstrumentRoutes } from './modules/payment-instruments/payment-instruments.routes';
import { webhookRoutes } from './modules/webhooks/webhook-deliveries.routes';
import { eventRoutes } from './modules/events/events.routes';
import { transactionRoutes } from './modules/transactions/transactions.routes';
import { orderRoutes } from './modules/orders/orders.routes';
import { subscriptionRoutes } from './modules/subscriptions/subscriptions.routes';
import { dashboardSubscriptionRoutes } from './modules/subscriptions/dashboard-subscriptions.routes';
import { merchantDashboardRoutes } from './modules/merchant-dashboard/merchant-dashboard.routes';
import { merchantDashboardWriteRoutes } from './modules/merchant-dashboard/merchant-dashboard-writes.routes';
import { merchantDashboardTeamRoutes } from './modules/merchant-dashboard/merchant-dashboard-team.routes';
import { merchantDashboardWebhookRoutes } from './modules/merchant-dashboard/merchant-dashboard-webhooks.routes';
import { apiKeyRoutes } from './modules/api-keys/api-keys.routes';
import { organizationApiKeyRoutes } from './modules/api-keys/org-api-keys.routes';
import { testClockRoutes } from './modules/test-clocks/test-clocks.routes';
import { dashboardTestClockRoutes } from './modules/test-clocks/dashboard-test-clocks.routes';

export const ROUTES: readonly AnyRoute[] = [
  ...healthRoutes,
  ...authRoutes,
  ...invitationRoutes,
  ...customerRoutes,
  ...productFamilyRoutes,
  ...productRoutes,
  ...offerRoutes,
  ...offerPriceRoutes,
  ...offerTransitionRoutes,
  ...checkoutSessionRoutes,
  ...merchantRoutes,
  ...memberRoutes,
  ...apiKeyRoutes,
  ...organizationApiKeyRoutes,
  ...connectorRoutes,
  ...orgConnectorRoutes,
  ...organizationSettingsRoutes,
  ...paymentProviderRoutes,
  ...routingRoutes,
  ...browserSessionRoutes,
  ...tokenRoutes,
  ...enrolmentTokenRoutes,
  ...paymentInstrumentRoutes,
  ...webhookRoutes,
  ...eventRoutes,
  ...transactionRoutes,
  ...orderRoutes,
  ...subscriptionRoutes,
  ...dashboardSubscriptionRoutes,
  ...testClockRoutes,
  ...dashboardTestClockRoutes,
  ...merchantDashboardRoutes,
  ...merchantDashboardWriteRoutes,
  ...merchantDashboardTeamRoutes,
  ...merchantDashboardWebhookRoutes,
];
