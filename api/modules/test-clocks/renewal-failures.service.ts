/**
 * "The next renewal fails" (docs/api-decisions.md, "Test clocks: the next renewal fails"): arms a decline for the
 * next renewal charge of a subscription whose customer is on the clock. Test clocks only, so only test-mode
 * connectors and sandbox cards are ever involved; the charge claims it (domain/test-clocks).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { errors } from '../../../domain/platform/errors';
import type { RenewalFailureCode } from '../../../domain/payment-instruments/payment-instruments.sandbox-cards';
import { armRenewalFailure, testClockIdOfSubscription } from '../../../db/repositories/test-clocks.repository';
import { getTestClock } from './test-clocks.service';

export interface ArmedRenewalFailure {
  subscription_id: string;
  test_clock_id: string;
  failure_code: RenewalFailureCode;
}

export async function failNextRenewal(
  em: EntityManager,
  merchantId: string,
  testClockId: string,
  subscriptionId: string,
  failureCode: RenewalFailureCode,
): Promise<ArmedRenewalFailure> {
  await getTestClock(em, merchantId, testClockId);
  const clockOfSubscription = await testClockIdOfSubscription(em, merchantId, subscriptionId);
  if (clockOfSubscription === undefined) throw errors.notFound('No such subscription', 'SUBSCRIPTION_NOT_FOUND');
  if (clockOfSubscription !== testClockId) {
    throw errors.conflict(
      'SUBSCRIPTION_NOT_ON_TEST_CLOCK',
      'Only a subscription whose customer is on this test clock can be made to fail its next renewal',
      { subscription_id: subscriptionId, test_clock_id: testClockId },
    );
  }
  await armRenewalFailure(em, { merchantId, testClockId, subscriptionId, failureCode });
  return { subscription_id: subscriptionId, test_clock_id: testClockId, failure_code: failureCode };
}
