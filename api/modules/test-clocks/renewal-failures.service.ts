/**
 * "The next renewal fails" (docs/api-decisions.md, "Test clocks: the next renewal fails"): arms a decline for the
 * next renewal charge of a subscription whose customer is on the clock. Test clocks only, so only test-mode
 * connectors and sandbox cards are ever involved; the charge claims it (domain/test-clocks). Arming is recorded in the
 * merchant's activity with its actor, the subscription and the failure_code, like the clock's other changes.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { errors } from '../../../domain/platform/errors';
import type { RenewalFailureCode } from '../../../domain/payment-instruments/payment-instruments.sandbox-cards';
import { armRenewalFailure, testClockIdOfSubscription } from '../../../db/repositories/test-clocks.repository';
import type { Actor } from '../../../domain/merchants/merchants.activity';
import { getTestClock, recordClockChange } from './test-clocks.service';

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
  actor: Actor,
): Promise<ArmedRenewalFailure> {
  const clock = await getTestClock(em, merchantId, testClockId);
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
  await recordClockChange(em, clock, 'renewal_failure_armed', actor, {
    subscription_id: subscriptionId,
    failure_code: failureCode,
  });
  await em.flush();
  return { subscription_id: subscriptionId, test_clock_id: testClockId, failure_code: failureCode };
}
