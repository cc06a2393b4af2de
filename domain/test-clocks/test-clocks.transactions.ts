/**
 * Test clocks' safety rule: a customer on a test clock is charged only on test-mode connectors. A live connector the
 * routing plan names for such a customer is never called: the attempt ends before any provider call with
 * error_code `test_clock_live_connector` (safe to try the next connector, which may be a test one), and when no
 * test connector is left the charge fails with that failure_code. And a renewal on a clock can be made to decline.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { claimRenewalFailure } from '../../db/repositories/test-clocks.repository';
import type { CardData, ProviderResult } from '../connectors/connector';
import {
  RENEWAL_FAILURE_CARDS,
  type RenewalFailureCode,
} from '../payment-instruments/payment-instruments.sandbox-cards';

export const TEST_CLOCK_LIVE_CONNECTOR = 'test_clock_live_connector';

/**
 * For a customer on a test clock (the attempt asks only then): the attempt's result when the rule refuses the
 * connector, or null when it may be called.
 */
export function testClockRefusal(connector: { isTestMode: boolean }): ProviderResult | null {
  if (connector.isTestMode) return null;
  return {
    outcome: 'processing_error',
    providerReference: null,
    rawCode: TEST_CLOCK_LIVE_CONNECTOR,
    rawMessage: 'A customer on a test clock can only be charged on a test-mode connector',
  };
}

/**
 * "The next renewal fails": a renewal charge of a test clock's subscription for which a failure is armed is sent to
 * the (test-mode) provider with the sandbox card that declines with that failure_code, so the decline comes from
 * the provider and runs through the same mapping, history and dunning as any other. Any other card is unchanged.
 */
export async function renewalCardOnTestClock(
  em: EntityManager,
  charge: { merchantId: string; subscriptionId: string; transactionId: string },
  card: CardData,
): Promise<CardData> {
  const failureCode = await claimRenewalFailure(em, charge);
  if (failureCode === null || !Object.hasOwn(RENEWAL_FAILURE_CARDS, failureCode)) return card;
  return { ...card, number: RENEWAL_FAILURE_CARDS[failureCode as RenewalFailureCode] };
}
