/**
 * An attempt's failure_code from its provider's own code: each adapter's table (its transformers.ts), applied
 * where an attempt's reason is read or recorded, so transactions, attempts, events and dunning speak one vocabulary.
 */
import { failureCodeOf, type FailureCodeTable } from '../../workflows/lib/failure-codes';
import type { Outcome } from '../../workflows/lib/transaction-types';
import { FAILURE_CODES as CHECKOUT } from './checkout/transformers';
import { FAILURE_CODES as PROVIDER_A } from './provider_a/transformers';
import { FAILURE_CODES as PROVIDER_B } from './provider_b/transformers';
import { FAILURE_CODES as PROVIDER_C } from './provider_c/transformers';
import { FAILURE_CODES as PROVIDER_D } from './provider_d/transformers';

const TABLES: Readonly<Record<string, FailureCodeTable>> = {
  checkout: CHECKOUT,
  provider_a: PROVIDER_A,
  provider_b: PROVIDER_B,
  provider_c: PROVIDER_C,
  provider_d: PROVIDER_D,
};

/** failure_code of an attempt on `providerSlug` that ended with `providerCode` and `outcome`. */
export function attemptFailureCode(
  providerSlug: string | null,
  providerCode: string | null,
  outcome: string | null,
): string | null {
  return failureCodeOf(TABLES[providerSlug ?? ''] ?? {}, providerCode, outcome as Outcome | null);
}
