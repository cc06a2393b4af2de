/**
 * Test clocks' safety rule: a customer on a test clock is charged only on test-mode connectors. A live connector the
 * routing plan names for such a customer is never called: the attempt ends before any provider call with
 * error_code `test_clock_live_connector` (safe to try the next connector, which may be a test one), and when no
 * test connector is left the charge fails with that failure_code.
 */
import type { ProviderResult } from '../connectors/connector';

export const TEST_CLOCK_LIVE_CONNECTOR = 'test_clock_live_connector';

/** The attempt's result when the rule refuses it, or null when the connector may be called. */
export function testClockRefusal(
  connector: { isTestMode: boolean },
  customerOnTestClock: boolean,
): ProviderResult | null {
  if (connector.isTestMode || !customerOnTestClock) return null;
  return {
    outcome: 'processing_error',
    providerReference: null,
    rawCode: TEST_CLOCK_LIVE_CONNECTOR,
    rawMessage: 'A customer on a test clock can only be charged on a test-mode connector',
  };
}
