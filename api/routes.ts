/** Every API route, in the order they appear in the OpenAPI document. */
import type { AnyRoute } from './http/define-route';
import { healthRoutes } from './modules/health/health.routes';
import { customerRoutes } from './modules/customers/customers.routes';
import { productFamilyRoutes } from './modules/product-families/product-families.routes';
import { productRoutes } from './modules/products/products.routes';
import { offerRoutes } from './modules/offers/offers.routes';
import { offerPriceRoutes } from './modules/offer-prices/offer-prices.routes';
import { offerTransitionRoutes } from './modules/offer-transitions/offer-transitions.routes';
import { checkoutSessionRoutes } from './modules/checkout-sessions/checkout-sessions.routes';
import { merchantRoutes } from './modules/merchants/merchants.routes';

export const ROUTES: readonly AnyRoute[] = [...healthRoutes, ...customerRoutes, ...productFamilyRoutes, ...productRoutes, ...offerRoutes, ...offerPriceRoutes, ...offerTransitionRoutes, ...checkoutSessionRoutes, ...merchantRoutes];
