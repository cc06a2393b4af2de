/** Every API route, in the order they appear in the OpenAPI document. */
import type { AnyRoute } from './http/define-route';
import { healthRoutes } from './modules/health/health.routes';
import { customerRoutes } from './modules/customers/customers.routes';

export const ROUTES: readonly AnyRoute[] = [...healthRoutes, ...customerRoutes];
