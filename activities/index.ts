/** createActivities(deps): every activity the worker registers, built from injected dependencies. */
import { createHousekeepingActivities, type HousekeepingDeps } from './housekeeping';
import { createCheckoutActivities, type CheckoutDeps } from './checkout';

export type ActivityDeps = HousekeepingDeps & CheckoutDeps;

export function createActivities(deps: ActivityDeps) {
  return {
    ...createHousekeepingActivities(deps),
    ...createCheckoutActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
