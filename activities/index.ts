/** createActivities(deps): every activity the worker registers, built from injected dependencies. */
import { createHousekeepingActivities, type HousekeepingDeps } from './housekeeping';

export type ActivityDeps = HousekeepingDeps;

export function createActivities(deps: ActivityDeps) {
  return {
    ...createHousekeepingActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
