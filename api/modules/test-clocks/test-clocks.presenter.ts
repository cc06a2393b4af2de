import type { TestClock } from '../../../db/entities';

export function presentTestClock(clock: TestClock) {
  return {
    id: clock.id,
    merchant_id: clock.merchantId,
    name: clock.name,
    frozen_time: clock.frozenTime.toISOString(),
    status: clock.status,
    created_at: clock.createdAt.toISOString(),
  };
}
